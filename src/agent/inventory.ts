/**
 * What the provider agent knows of its machine, for registration and heartbeats (SPEC 1.6; research
 * marketplace.md §5 "Provider agent": GPU model, VRAM, count, driver/CUDA, disk free):
 *
 * - GPUs from `nvidia-smi -q -x` (its XML report, nvsmi_device_v*.dtd), parsed with fast-xml-parser;
 * - or, on machines without GPUs (demos, tests), the whole inventory from a JSON file;
 * - CPU cores and RAM from node:os, free disk from statfs.
 *
 * Pure where it can be: parsing takes the text, so the agent decides how nvidia-smi is run.
 */
import { readFileSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { availableParallelism, totalmem } from 'node:os';
import { XMLParser } from 'fast-xml-parser';
import { z } from 'zod';
import { isRecord } from '../lib/is-record.js';

export interface GpuInventory {
  /** The marketplace's gpu_name (`RTX_4090`), see gpuNameOf. */
  gpuName: string;
  gpuCount: number;
  /** Memory of each GPU in GB (binary, as GPU makers and the marketplace count it: 24564 MiB is 24). */
  vramGb: number;
  driverVersion: string | null;
  cudaVersion: string | null;
  /** In nvidia-smi's order, which is the NVML index Docker's `DeviceIDs` and CUDA_VISIBLE_DEVICES mean. */
  gpus: { index: number; uuid: string; productName: string }[];
}

/** A machine's inventory as the gateway registers it (the contract's MachineRegistration, without the listing). */
export interface MachineInventory {
  name: string;
  gpuName: string;
  gpuCount: number;
  vramGb: number;
  cpuCores: number;
  ramGb: number;
  diskGb: number;
  /** ISO 3166-1 alpha-2 country code. */
  location: string;
}

/** The contract's gpu_name pattern (MachineRegistration.yaml): what gpuNameOf must produce. */
const GPU_NAME = /^[A-Za-z0-9]+(_[A-Za-z0-9]+)*$/;
const GPU_NAME_MAX_CHARS = 64;
/** Vendor and brand words, and filler: they say nothing about which GPU it is. */
const NOISE_WORDS = new Set(['nvidia', 'geforce', 'tesla', 'quadro', 'gpu', 'generation']);
/** Form factor and memory technology: the same chip with the same memory rents as the same GPU. */
const PACKAGING_WORD = /^(?:sxm\d*|pcie|hbm\d*e?)$/i;

/**
 * The marketplace's gpu_name for an nvidia-smi `product_name`, one rule for every model so names never need a
 * table: split on spaces and hyphens; drop vendor and brand words (NVIDIA, GeForce, Tesla, Quadro), "GPU" and
 * "Generation"; drop form factor and memory technology (SXM*, PCIe, HBM*); strip what is not a letter or digit;
 * join the rest with "_", as written.
 *
 *   NVIDIA GeForce RTX 4090 → RTX_4090        NVIDIA A100-SXM4-80GB → A100_80GB     NVIDIA H100 80GB HBM3 → H100_80GB
 *   NVIDIA RTX A6000 → RTX_A6000              Tesla V100-PCIE-32GB → V100_32GB      NVIDIA RTX 6000 Ada Generation → RTX_6000_Ada
 */
export function gpuNameOf(productName: string): string {
  const words = productName
    .split(/[\s-]+/)
    .filter((word) => !NOISE_WORDS.has(word.toLowerCase()) && !PACKAGING_WORD.test(word))
    .map((word) => word.replace(/[^A-Za-z0-9]/g, ''))
    .filter((word) => word.length > 0);
  const name = words.join('_');
  if (!GPU_NAME.test(name) || name.length > GPU_NAME_MAX_CHARS)
    throw new Error(`cannot derive a GPU name from the product name "${productName}"`);
  return name;
}

/** Values stay text: "12.10" is a CUDA version, not the number 12.1; attributes (the PCI id) are not needed. */
const xmlParser = new XMLParser({ parseTagValue: false, ignoreAttributes: true });

/** nvidia-smi's word for a field it cannot read. */
const NOT_AVAILABLE = new Set(['N/A', 'Not Supported', '[N/A]', '']);
const MIB = /^(\d+) MiB$/;

/**
 * The GPUs of `nvidia-smi -q -x` output. Refuses what cannot be listed honestly: no GPUs, fewer GPUs described
 * than attached (one fell off the bus), a GPU without its UUID or memory size (also what a cut-off report looks
 * like), and GPUs of more than one model (the marketplace lists one GPU type per machine, like Vast's "all GPUs
 * the same type" rule).
 */
export function parseNvidiaSmiXml(xml: string): GpuInventory {
  const log: unknown = (xmlParser.parse(xml) as Record<string, unknown>)['nvidia_smi_log'];
  if (!isRecord(log)) throw new Error('not the output of nvidia-smi -q -x: no <nvidia_smi_log> element');
  const gpuElements =
    log['gpu'] === undefined ? [] : Array.isArray(log['gpu']) ? (log['gpu'] as unknown[]) : [log['gpu']];
  if (gpuElements.length === 0) throw new Error('nvidia-smi lists no GPUs');
  const attached = textOf(log['attached_gpus']);
  if (attached !== null && Number(attached) !== gpuElements.length) {
    throw new Error(`nvidia-smi reports ${attached} attached GPUs but describes ${gpuElements.length}`);
  }
  const gpus = gpuElements.map((element, index) => readGpu(element, index));
  const models = new Map<string, number>();
  for (const gpu of gpus) models.set(gpu.productName, (models.get(gpu.productName) ?? 0) + 1);
  if (models.size > 1) {
    const mix = [...models].map(([model, count]) => `${count}× ${model}`).join(', ');
    throw new Error(
      `mixed GPU models (${mix}): a machine is listed with one GPU model; run one agent per model or remove the odd GPUs`,
    );
  }
  // The smallest: a GPU of the same model can report a little less (ECC on), and a renter must get what is listed.
  const vramMib = Math.min(...gpus.map((gpu) => gpu.vramMib));
  return {
    gpuName: gpuNameOf(gpus[0]!.productName),
    gpuCount: gpus.length,
    vramGb: Math.round(vramMib / 1024),
    driverVersion: textOf(log['driver_version']),
    cudaVersion: textOf(log['cuda_version']),
    gpus: gpus.map(({ index, uuid, productName }) => ({ index, uuid, productName })),
  };
}

function readGpu(
  element: unknown,
  index: number,
): { index: number; uuid: string; productName: string; vramMib: number } {
  if (!isRecord(element)) throw new Error(`GPU ${index}: empty <gpu> element`);
  const productName = textOf(element['product_name']);
  const uuid = textOf(element['uuid']);
  const memory = element['fb_memory_usage'];
  const total = isRecord(memory) ? textOf(memory['total']) : null;
  const mib = total === null ? null : MIB.exec(total);
  if (productName === null) throw new Error(`GPU ${index}: no <product_name>`);
  if (uuid === null) throw new Error(`GPU ${index} (${productName}): no <uuid>`);
  if (mib === null)
    throw new Error(
      `GPU ${index} (${productName}): no memory size in <fb_memory_usage><total> (got ${total ?? 'nothing'})`,
    );
  return { index, uuid, productName, vramMib: Number(mib[1]) };
}

/** A leaf's text, or null when absent or one of nvidia-smi's "not available" words. */
function textOf(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  return NOT_AVAILABLE.has(text) ? null : text;
}

// The contract's bounds (openapi/components/schemas/MachineRegistration.yaml), so a file this accepts is one the
// gateway accepts; test/unit/agent-inventory.test.ts holds the two together.
const count = (min: number, max: number) => z.number().int().min(min).max(max);
const inventoryFileSchema = z.strictObject({
  name: z.string().min(1).max(100),
  gpu_name: z.string().max(GPU_NAME_MAX_CHARS).regex(GPU_NAME, 'must be underscore style, e.g. RTX_4090'),
  gpu_count: count(1, 64),
  vram_gb: count(1, 1024),
  cpu_cores: count(1, 1024),
  ram_gb: count(1, 65536),
  disk_gb: count(20, 1048576),
  location: z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 country code, e.g. DE'),
});

/** The inventory of a machine without GPUs to detect (demos, tests), from a JSON file; errors name the field. */
export function readInventoryFile(path: string): MachineInventory {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`${path}: ${(err as Error).message}`);
  }
  const parsed = inventoryFileSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      if (issue.code === 'unrecognized_keys') return `${issue.keys.join(', ')}: unknown field`;
      return `${issue.path.length === 0 ? '(file)' : issue.path.join('.')}: ${issue.message}`;
    });
    throw new Error(`${path}: ${problems.join('; ')}`);
  }
  const f = parsed.data;
  return {
    name: f.name,
    gpuName: f.gpu_name,
    gpuCount: f.gpu_count,
    vramGb: f.vram_gb,
    cpuCores: f.cpu_cores,
    ramGb: f.ram_gb,
    diskGb: f.disk_gb,
    location: f.location,
  };
}

const GIB = 1024 ** 3;

/**
 * CPU cores and RAM of this host. availableParallelism, not cpus().length: it is never 0 (cpus() is empty where
 * /proc is hidden) and honours a CPU affinity mask. RAM is what the kernel manages (MemTotal), a little under the
 * installed size, rounded.
 */
export function detectHost(): { cpuCores: number; ramGb: number } {
  return { cpuCores: availableParallelism(), ramGb: Math.max(1, Math.round(totalmem() / GIB)) };
}

/**
 * Free space under `path` in GB (binary, as Docker's StorageOpt sizes count), rounded down so the agent never
 * promises space it has not got: what an unprivileged writer can use (bavail), not the root reserve.
 */
export async function diskFreeGb(path: string): Promise<number> {
  const stats = await statfs(path);
  return Math.floor((stats.bavail * stats.bsize) / GIB);
}
