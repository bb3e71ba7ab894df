/**
 * The provider agent: `npm run agent -- --gateway <url> --price-per-gpu-hour <usd> [options]` (docs/marketplace.md "Providers").
 * The provider's API key comes from CGW_API_KEY (or --key). The machine is described by `nvidia-smi -q -x` and this
 * host, or, on a machine without GPUs (demos, tests), by an inventory file (--inventory).
 */
import { execFile } from 'node:child_process';
import { hostname } from 'node:os';
import { parseArgs, promisify } from 'node:util';
import type { MachineRegistration } from '../../generated/client/types.gen.js';
import { Agent } from './agent.js';
import { DockerEngine } from './docker-engine.js';
import { Gateway } from './gateway.js';
import { detectHost, diskFreeGb, type MachineInventory, parseNvidiaSmiXml, readInventoryFile } from './inventory.js';

const USAGE = `usage: npm run agent -- --gateway <url> --price-per-gpu-hour <usd> [--inventory <file.json> | --location <CC>]
  [--key <api key> (or CGW_API_KEY)] [--name <name>] [--min-gpus <n>] [--docker-host <DOCKER_HOST>]
  [--state <file>] [--heartbeat-seconds 5] [--disk-quota] [--help]`;

const HELP = `${USAGE}

Lists this machine's GPUs on the marketplace and runs the rentals placed on them (docs/marketplace.md "Providers").
  --gateway             the gateway's base URL, e.g. http://127.0.0.1:8080
  --price-per-gpu-hour  the listing price per GPU and hour, in USD (at least 0.01)
  --key                 the provider account's API key (default: the CGW_API_KEY environment variable)
  --inventory           a JSON file describing the machine, instead of nvidia-smi and this host
  --location            the machine's ISO 3166-1 country code (required without --inventory)
  --name                the machine's name (default: the host name)
  --min-gpus            the fewest GPUs one rental of this machine takes
  --docker-host         the Docker Engine to run rentals on (default: DOCKER_HOST, else the local socket)
  --state               where the agent keeps its machine id between runs
  --heartbeat-seconds   how often the agent reports to the gateway
  --disk-quota          cap each rental container's disk where the storage driver can
  --help, -h            print this and exit

Environment (the docker CLI's; src/agent/README.md):
  CGW_API_KEY           the provider account's API key
  DOCKER_HOST           unix:///var/run/docker.sock, tcp://host:port or ssh://user@host (which runs docker there)
  DOCKER_TLS_VERIFY=1   speak TLS to a tcp:// host (also on port 2376), with the client certificate and CA of
  DOCKER_CERT_PATH      the folder holding ca.pem, cert.pem and key.pem
  SSH_AUTH_SOCK         the ssh agent holding the key for an ssh:// host`;

const OPTIONS = {
  gateway: { type: 'string' },
  key: { type: 'string' },
  inventory: { type: 'string' },
  name: { type: 'string' },
  location: { type: 'string' },
  'price-per-gpu-hour': { type: 'string' },
  'min-gpus': { type: 'string' },
  'docker-host': { type: 'string' },
  state: { type: 'string', default: 'data/agent-state.json' },
  'heartbeat-seconds': { type: 'string', default: '5' },
  'disk-quota': { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

function readArgs() {
  try {
    return parseArgs({ options: OPTIONS }).values;
  } catch (err) {
    // An unknown or malformed option is the user's mistake: one line and the usage, not a stack trace.
    return fail(err instanceof Error ? err.message : String(err));
  }
}

const values = readArgs();
if (values.help) {
  process.stdout.write(`${HELP}\n`);
  process.exit(0);
}

const log = (message: string, fields: Record<string, unknown> = {}) =>
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), msg: message, ...fields })}\n`);

/** The machine from nvidia-smi and this host, when no inventory file is given. */
async function detectInventory(): Promise<MachineInventory> {
  if (values.location === undefined) fail('--location (ISO country code) is required without --inventory');
  const { stdout } = await promisify(execFile)('nvidia-smi', ['-q', '-x'], { maxBuffer: 16 * 1024 * 1024 });
  const gpus = parseNvidiaSmiXml(stdout);
  const host = detectHost();
  return {
    name: values.name ?? hostname(),
    gpuName: gpus.gpuName,
    gpuCount: gpus.gpuCount,
    vramGb: gpus.vramGb,
    ...host,
    diskGb: await diskFreeGb('/'),
    location: values.location,
  };
}

const gatewayUrl = values.gateway ?? fail('--gateway is required');
const apiKey = values.key ?? process.env.CGW_API_KEY ?? fail('the provider API key is required: CGW_API_KEY or --key');
const price = Number(values['price-per-gpu-hour']);
if (!(price >= 0.01)) fail('--price-per-gpu-hour must be at least 0.01 USD (the listing price floor)');
const inventory = values.inventory === undefined ? await detectInventory() : readInventoryFile(values.inventory);
const registration: MachineRegistration = {
  name: values.name ?? inventory.name,
  gpu_name: inventory.gpuName,
  gpu_count: inventory.gpuCount,
  vram_gb: inventory.vramGb,
  cpu_cores: inventory.cpuCores,
  ram_gb: inventory.ramGb,
  disk_gb: inventory.diskGb,
  location: inventory.location,
  price_per_gpu_hour_usd: price,
  ...(values['min-gpus'] === undefined ? {} : { min_gpus: Number(values['min-gpus']) }),
};
// The flag stands for DOCKER_HOST: docker-modem reads the address, TLS files and ssh agent from the environment.
if (values['docker-host'] !== undefined) process.env.DOCKER_HOST = values['docker-host'];
const agent = new Agent({
  gateway: new Gateway(gatewayUrl, apiKey),
  docker: new DockerEngine({ diskQuota: values['disk-quota'] }),
  registration,
  statePath: values.state!,
  heartbeatMs: Number(values['heartbeat-seconds']) * 1000,
  log,
});
const machineId = await agent.start();
log('agent running', { machine_id: machineId, gateway: gatewayUrl });
for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.once(signal, () => void agent.stop().then(() => process.exit(0)));
