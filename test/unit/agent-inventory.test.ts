import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { detectHost, diskFreeGb, gpuNameOf, parseNvidiaSmiXml, readInventoryFile } from '../../src/agent/inventory.js';
import { PROJECT_ROOT } from '../../src/lib/project-root.js';

const fixture = (name: string): string => readFileSync(`${PROJECT_ROOT}test/fixtures/nvidia-smi/${name}`, 'utf8');

/** A minimal nvidia-smi report around the given <gpu> bodies. */
function report(
  gpus: string[],
  head = '<driver_version>550.54.14</driver_version><cuda_version>12.4</cuda_version>',
): string {
  const body = gpus.map((g) => `<gpu id="x">${g}</gpu>`).join('');
  return `<?xml version="1.0" ?>\n<nvidia_smi_log>${head}<attached_gpus>${gpus.length}</attached_gpus>${body}</nvidia_smi_log>`;
}
const gpu = (product: string, mib: number, uuid = 'GPU-1'): string =>
  `<product_name>${product}</product_name><uuid>${uuid}</uuid><fb_memory_usage><total>${mib} MiB</total><used>0 MiB</used></fb_memory_usage>`;

describe('parseNvidiaSmiXml', () => {
  it('reads a 2× RTX 4090 box', () => {
    expect(parseNvidiaSmiXml(fixture('rtx4090x2.xml'))).toEqual({
      gpuName: 'RTX_4090',
      gpuCount: 2,
      vramGb: 24,
      driverVersion: '550.54.14',
      cudaVersion: '12.4',
      gpus: [
        { index: 0, uuid: 'GPU-4a93a0d8-ad21-c970-2b71-e33822a11b8e', productName: 'NVIDIA GeForce RTX 4090' },
        { index: 1, uuid: 'GPU-da2c3b11-4677-12dd-195b-687553e7aa65', productName: 'NVIDIA GeForce RTX 4090' },
      ],
    });
  });

  it('reads an 8× A100 80GB SXM4 box, GPUs in nvidia-smi order', () => {
    const inventory = parseNvidiaSmiXml(fixture('a100-80gb-x8.xml'));
    expect(inventory).toMatchObject({
      gpuName: 'A100_80GB',
      gpuCount: 8,
      vramGb: 80,
      driverVersion: '535.129.03',
      cudaVersion: '12.2',
    });
    expect(inventory.gpus.map((g) => g.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(new Set(inventory.gpus.map((g) => g.uuid)).size).toBe(8);
  });

  it('refuses a machine with mixed GPU models, naming them', () => {
    expect(() => parseNvidiaSmiXml(fixture('mixed-rtx4090-rtx3090.xml'))).toThrow(
      /mixed GPU models \(1× NVIDIA GeForce RTX 4090, 1× NVIDIA GeForce RTX 3090\): a machine is listed with one GPU model/,
    );
  });

  it('reads a single GPU, and keeps versions as text ("12.10" is not 12.1)', () => {
    const xml = report(
      [gpu('NVIDIA H100 80GB HBM3', 81559)],
      '<driver_version>570.86.10</driver_version><cuda_version>12.10</cuda_version>',
    );
    expect(parseNvidiaSmiXml(xml)).toEqual({
      gpuName: 'H100_80GB',
      gpuCount: 1,
      vramGb: 80,
      driverVersion: '570.86.10',
      cudaVersion: '12.10',
      gpus: [{ index: 0, uuid: 'GPU-1', productName: 'NVIDIA H100 80GB HBM3' }],
    });
  });

  it('reports versions nvidia-smi cannot read, or leaves out, as null', () => {
    const xml = report([gpu('NVIDIA GeForce RTX 4090', 24564)], '<driver_version>N/A</driver_version>');
    expect(parseNvidiaSmiXml(xml)).toMatchObject({ driverVersion: null, cudaVersion: null });
  });

  it('lists the smallest memory when GPUs of one model report slightly different totals', () => {
    const xml = report([gpu('Tesla V100-SXM2-16GB', 16160, 'GPU-a'), gpu('Tesla V100-SXM2-16GB', 15360, 'GPU-b')]);
    expect(parseNvidiaSmiXml(xml)).toMatchObject({ gpuName: 'V100_16GB', vramGb: 15 });
  });

  it('refuses output that does not describe every GPU honestly', () => {
    expect(() => parseNvidiaSmiXml('<html><body>nope</body></html>')).toThrow(/no <nvidia_smi_log> element/);
    expect(() => parseNvidiaSmiXml('not xml at all')).toThrow(/no <nvidia_smi_log> element/);
    expect(() => parseNvidiaSmiXml(report([]))).toThrow(/lists no GPUs/);
    const lost = report([gpu('NVIDIA A100-SXM4-80GB', 81920)]).replace('<attached_gpus>1<', '<attached_gpus>2<');
    expect(() => parseNvidiaSmiXml(lost)).toThrow(/reports 2 attached GPUs but describes 1/);
    const noUuid =
      '<product_name>NVIDIA L40S</product_name><fb_memory_usage><total>46068 MiB</total></fb_memory_usage>';
    expect(() => parseNvidiaSmiXml(report([noUuid]))).toThrow(/GPU 0 \(NVIDIA L40S\): no <uuid>/);
    expect(() => parseNvidiaSmiXml(report([gpu('NVIDIA L40S', 0).replace('0 MiB</total>', 'N/A</total>')]))).toThrow(
      /no memory size .* \(got nothing\)/,
    );
  });

  it('refuses a report cut off mid-GPU (the parser itself is lenient)', () => {
    const whole = fixture('rtx4090x2.xml');
    const cut = whole.slice(0, whole.lastIndexOf('<uuid>'));
    expect(() => parseNvidiaSmiXml(cut)).toThrow(/GPU 1 \(NVIDIA GeForce RTX 4090\): no <uuid>/);
  });
});

describe('gpuNameOf', () => {
  it.each([
    ['NVIDIA GeForce RTX 4090', 'RTX_4090'],
    ['NVIDIA A100-SXM4-80GB', 'A100_80GB'],
    ['NVIDIA A100 80GB PCIe', 'A100_80GB'],
    ['NVIDIA A100-PCIE-40GB', 'A100_40GB'],
    ['NVIDIA H100 80GB HBM3', 'H100_80GB'],
    ['NVIDIA H100 NVL', 'H100_NVL'],
    ['NVIDIA H200', 'H200'],
    ['NVIDIA RTX A6000', 'RTX_A6000'],
    ['NVIDIA RTX 6000 Ada Generation', 'RTX_6000_Ada'],
    ['NVIDIA GeForce RTX 3090 Ti', 'RTX_3090_Ti'],
    ['NVIDIA GeForce RTX 3080 Laptop GPU', 'RTX_3080_Laptop'],
    ['NVIDIA L40S', 'L40S'],
    ['Tesla T4', 'T4'],
    ['Tesla V100-PCIE-32GB', 'V100_32GB'],
    ['Quadro RTX 8000', 'RTX_8000'],
    ['NVIDIA GH200 480GB', 'GH200_480GB'],
  ])('%s → %s', (product, name) => {
    expect(gpuNameOf(product)).toBe(name);
  });

  it('refuses a product name with nothing left to name the model', () => {
    expect(() => gpuNameOf('NVIDIA')).toThrow(/cannot derive a GPU name from the product name "NVIDIA"/);
    expect(() => gpuNameOf(`NVIDIA ${'X'.repeat(65)}`)).toThrow(/cannot derive/);
  });
});

describe('readInventoryFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-inventory-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const valid = {
    name: 'demo-box',
    gpu_name: 'RTX_4090',
    gpu_count: 2,
    vram_gb: 24,
    cpu_cores: 32,
    ram_gb: 128,
    disk_gb: 2000,
    location: 'DE',
  };
  let n = 0;
  const file = (content: unknown): string => {
    const path = join(dir, `inventory-${n++}.json`);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };

  it('reads a valid file', () => {
    expect(readInventoryFile(file(valid))).toEqual({
      name: 'demo-box',
      gpuName: 'RTX_4090',
      gpuCount: 2,
      vramGb: 24,
      cpuCores: 32,
      ramGb: 128,
      diskGb: 2000,
      location: 'DE',
    });
  });

  it('names every field at fault, and the file', () => {
    const path = file({ ...valid, gpu_name: 'RTX 4090', gpu_count: 0, location: 'Germany' });
    expect(() => readInventoryFile(path)).toThrow(
      `${path}: gpu_name: must be underscore style, e.g. RTX_4090; gpu_count: `,
    );
    expect(() => readInventoryFile(path)).toThrow(/location: must be an ISO 3166-1 alpha-2 country code/);
    const { disk_gb: _, ...noDisk } = valid;
    expect(() => readInventoryFile(file(noDisk))).toThrow(/disk_gb: /);
    expect(() => readInventoryFile(file({ ...valid, vram_gb: 24.5 }))).toThrow(/vram_gb: /);
  });

  it('refuses unknown fields (a typo must not pass silently) and files that are not a JSON object', () => {
    expect(() => readInventoryFile(file({ ...valid, gpu_cout: 2 }))).toThrow(/gpu_cout: unknown field/);
    expect(() => readInventoryFile(file('{"name": '))).toThrow(/inventory-\d+\.json: .*JSON/);
    expect(() => readInventoryFile(file('[]'))).toThrow(/\(file\): /);
    expect(() => readInventoryFile(join(dir, 'absent.json'))).toThrow(/absent\.json: ENOENT/);
  });

  it("holds the bounds of the contract's MachineRegistration, so the gateway accepts what it accepts", () => {
    const schema = parseYaml(
      readFileSync(`${PROJECT_ROOT}openapi/components/schemas/MachineRegistration.yaml`, 'utf8'),
    ) as {
      allOf: { properties?: Record<string, { type?: string; minimum?: number; maximum?: number }> }[];
    };
    const properties = schema.allOf.find((part) => part.properties?.['gpu_count'] !== undefined)!.properties!;
    const integers = Object.entries(properties).filter(([, p]) => p.type === 'integer');
    expect(integers.map(([field]) => field).sort()).toEqual(['cpu_cores', 'disk_gb', 'gpu_count', 'ram_gb', 'vram_gb']);
    for (const [field, { minimum, maximum }] of integers) {
      expect(() => readInventoryFile(file({ ...valid, [field]: minimum }))).not.toThrow();
      expect(() => readInventoryFile(file({ ...valid, [field]: maximum }))).not.toThrow();
      expect(() => readInventoryFile(file({ ...valid, [field]: minimum! - 1 }))).toThrow(new RegExp(`${field}: `));
      expect(() => readInventoryFile(file({ ...valid, [field]: maximum! + 1 }))).toThrow(new RegExp(`${field}: `));
    }
    expect(Object.keys(properties).sort()).toEqual(Object.keys(valid).sort());
  });
});

describe('host facts', () => {
  it('detects CPU cores and RAM as positive whole numbers', () => {
    const host = detectHost();
    expect(Number.isInteger(host.cpuCores) && host.cpuCores >= 1).toBe(true);
    expect(Number.isInteger(host.ramGb) && host.ramGb >= 1).toBe(true);
  });

  it('reads free disk space in whole GB, and fails for a path that does not exist', async () => {
    const free = await diskFreeGb(tmpdir());
    expect(Number.isInteger(free) && free >= 0).toBe(true);
    await expect(diskFreeGb('/nonexistent/agent/path')).rejects.toThrow(/ENOENT/);
  });
});
