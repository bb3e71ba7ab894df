/**
 * The scale-out deployment (DESIGN.md 13; docs/deployment.md): the Dockerfile and compose.yaml at the repository
 * root, read as Docker and Docker Compose read them. Every variable they give a gateway must be one the service
 * reads (a misspelt one would be ignored silently), and the .env the docs tell operators to write must pass the
 * checks the service makes when it starts in production.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadContract } from '../../src/composition/config-files.js';
import { loadCatalog, loadUpstreams } from '../../src/composition/text.js';
import { CONFIG_VARIABLES, loadConfig } from '../../src/config.js';
import { PROJECT_ROOT } from '../../src/lib/project-root.js';

const read = (file: string) => readFileSync(`${PROJECT_ROOT}${file}`, 'utf8');

interface Stage {
  from: string;
  instructions: { keyword: string; args: string }[];
}

/** Dockerfile instructions per stage: continuation lines joined, comment lines dropped, keywords upper-cased. */
function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const logical = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ');
  for (const line of logical.split('\n')) {
    const match = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line);
    if (match === null) continue;
    const keyword = match[1]!.toUpperCase();
    const args = match[2]!.trim();
    if (keyword === 'FROM') stages.push({ from: args.split(/\s+/)[0]!, instructions: [] });
    stages.at(-1)?.instructions.push({ keyword, args });
  }
  return stages;
}

const argsOf = (stage: Stage, keyword: string) =>
  stage.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);

/** `ENV A=1 B="two words"` (the key=value form) as a map. */
function envOf(args: string): Record<string, string> {
  const pairs = args.match(/[A-Za-z_][A-Za-z0-9_]*=("[^"]*"|\S*)/g) ?? [];
  return Object.fromEntries(
    pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1).replace(/^"|"$/g, '')]),
  );
}

/**
 * Compose's interpolation: `$$` is `$`; `${NAME}`, `${NAME:-default}` and `${NAME:?message}`, where `:?` stops
 * compose when NAME is unset or empty.
 */
function interpolate(value: string, env: Record<string, string>): string {
  return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([-?])([^}]*))?\}/g, (whole, name, op, arg) => {
    if (whole === '$$') return '$';
    const set = env[name as string];
    if (set !== undefined && set !== '') return set;
    if (op === '?') throw new Error(`compose refuses to start: ${name}: ${arg}`);
    return op === '-' ? (arg as string) : '';
  });
}

/** The .env docs/deployment.md "First start" writes, with each `$(openssl rand -hex N)` standing as N random bytes. */
function documentedDotEnv(): Record<string, string> {
  const heredoc = /cat > \.env <<EOF\n([\s\S]*?)\nEOF/.exec(read('docs/deployment.md'))?.[1];
  if (heredoc === undefined) throw new Error('docs/deployment.md has no `cat > .env <<EOF` block');
  const lines = heredoc.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
  return Object.fromEntries(
    lines.map((line) => {
      const value = line.slice(line.indexOf('=') + 1);
      return [
        line.slice(0, line.indexOf('=')),
        value.replace(/\$\(openssl rand -hex (\d+)\)/, (_, n) => 'ab'.repeat(Number(n))),
      ];
    }),
  );
}

interface Service {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  command?: string | string[];
  environment?: Record<string, string | number | boolean>;
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
}

const dockerStages = parseDockerfile(read('Dockerfile'));
const runtime = dockerStages.at(-1)!;
// The runtime stage's ENV: a build stage's variables never reach the process.
const imageEnv = Object.assign({}, ...argsOf(runtime, 'ENV').map(envOf)) as Record<string, string>;
const compose = parseYaml(read('compose.yaml'), { merge: true }) as { services: Record<string, Service> };
const services = compose.services;
const gateways = Object.entries(services).filter(([name]) => /^gateway-\d+$/.test(name));
const rawEnv = (service: Service) =>
  Object.fromEntries(Object.entries(service.environment ?? {}).map(([k, v]) => [k, String(v)]));

/** What a gateway process sees: the image's ENV, then its compose environment interpolated from `.env`. */
function processEnv(service: Service, dotEnv: Record<string, string>): Record<string, string> {
  const own = Object.entries(rawEnv(service)).map(([name, value]) => [name, interpolate(value, dotEnv)]);
  return { ...imageEnv, ...Object.fromEntries(own) };
}

describe('Dockerfile', () => {
  it('builds on Node 24 and runs as the unprivileged node user, serving dist/src/main.js on 8080', () => {
    expect(dockerStages.length).toBeGreaterThan(1);
    for (const stage of dockerStages) expect(stage.from).toMatch(/^node:24[.-]/);
    const users = argsOf(runtime, 'USER');
    expect(users.at(-1)).toBe('node');
    expect(argsOf(runtime, 'WORKDIR').at(-1)).toBe('/app');
    expect(argsOf(runtime, 'EXPOSE').join(' ').split(/\s+/)).toContain('8080');
    expect(JSON.parse(argsOf(runtime, 'CMD').at(-1)!)).toEqual(['node', 'dist/src/main.js']);
    expect(imageEnv).toMatchObject({ NODE_ENV: 'production', HOST: '0.0.0.0', MALLOC_ARENA_MAX: '1' });
  });

  it('its healthcheck asks /readyz and passes only on a ready answer', async () => {
    const healthchecks = argsOf(runtime, 'HEALTHCHECK');
    expect(healthchecks).toHaveLength(1);
    const argv = JSON.parse(/\bCMD\s+(\[.*\])$/.exec(healthchecks[0]!)![1]!) as string[];
    expect(argv[0]).toBe('node');
    const paths: string[] = [];
    let status = 200;
    const server = createServer((req, res) => {
      paths.push(req.url ?? '');
      res.writeHead(status).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    // Run asynchronously: the server above answers on this event loop.
    const check = (checkPort: number) =>
      new Promise<number>((resolve) => {
        const env = { ...process.env, PORT: String(checkPort) };
        execFile(process.execPath, argv.slice(1), { env, timeout: 30_000 }, (err) =>
          resolve(err ? Number(err.code ?? 1) : 0),
        );
      });
    try {
      expect(await check(port)).toBe(0);
      status = 503;
      expect(await check(port)).toBe(1);
      expect(paths).toEqual(['/readyz', '/readyz']);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(await check(port)).toBe(1); // nothing listening
  }, 60_000);
});

describe('compose.yaml', () => {
  it('runs PostgreSQL, Redis, an S3-compatible store and exactly three gateways built from the Dockerfile', () => {
    expect(services.postgres?.image).toMatch(/^postgres:/);
    expect(services.redis?.image).toMatch(/^redis:/);
    expect(services.seaweedfs?.image).toMatch(/^chrislusf\/seaweedfs:/);
    expect(services.seaweedfs?.command).toContain('-s3');
    // A deployment that changes under its operator's feet is not reproducible: every image names its version.
    for (const [name, service] of Object.entries(services))
      if (service.image !== undefined) expect(service.image, name).toMatch(/:(?!latest$)[\w.-]+$/);
    expect(gateways.map(([name]) => name)).toEqual(['gateway-1', 'gateway-2', 'gateway-3']);
    for (const [, gateway] of gateways) {
      const build = typeof gateway.build === 'string' ? { context: gateway.build } : gateway.build;
      expect(build?.context).toBe('.');
      expect(build?.dockerfile ?? 'Dockerfile').toBe('Dockerfile');
      // CATALOG_FILE and UPSTREAMS_FILE are relative to WORKDIR: /app/config is the operator's ./config.
      expect(gateway.volumes).toContain('./config:/app/config:ro');
    }
  });

  it('sets no variable, in the image or a gateway, that the configuration schema does not read', () => {
    // Besides the schema, the service reads the provider keys the upstreams file names (api_key_env).
    const keyVariables = [...read('config/upstreams.yaml').matchAll(/^\s*api_key_env:\s*(\S+)/gm)].map((m) => m[1]!);
    // And the C library reads MALLOC_ARENA_MAX (the Dockerfile's malloc tuning).
    const known = new Set([...CONFIG_VARIABLES, ...keyVariables, 'MALLOC_ARENA_MAX']);
    expect(known).toContain('DATABASE_URL');
    expect(known).not.toContain('DATABASE_URI');
    const set = [
      ...Object.keys(imageEnv).map((name) => `Dockerfile ENV ${name}`),
      ...gateways.flatMap(([service, gateway]) => Object.keys(rawEnv(gateway)).map((name) => `${service} ${name}`)),
    ];
    expect(set.length).toBeGreaterThan(10);
    expect(set.filter((where) => !known.has(where.split(' ').at(-1)!))).toEqual([]);
  });

  it('gives every gateway the same database, Redis, bucket and secrets, none of them with a default', () => {
    const shared = [
      'DATABASE_URL',
      'REDIS_URL',
      'FILE_LINK_SECRET',
      'S3_ENDPOINT',
      'S3_BUCKET',
      'S3_SECRET_ACCESS_KEY',
    ];
    const first = rawEnv(gateways[0]![1]);
    for (const [, gateway] of gateways) for (const name of shared) expect(rawEnv(gateway)[name]).toBe(first[name]);
    const env = processEnv(gateways[0]![1], documentedDotEnv());
    const host = (name: string) => new URL(env[name]!).hostname;
    expect([host('DATABASE_URL'), host('REDIS_URL'), host('S3_ENDPOINT')]).toEqual(['postgres', 'redis', 'seaweedfs']);
    expect(env).toMatchObject({ BLOB_STORE: 's3', NODE_ENV: 'production' });
    for (const secret of ['FILE_LINK_SECRET', 'S3_SECRET_ACCESS_KEY', 'POSTGRES_PASSWORD']) {
      expect(() => processEnv(gateways[0]![1], { ...documentedDotEnv(), [secret]: '' }), secret).toThrow(
        /compose refuses to start/,
      );
    }
  });

  it('starts gateway-1 alone on the services, and the others once it is healthy (it migrates a fresh database)', () => {
    const [[, first], ...others] = gateways as [[string, Service], ...[string, Service][]];
    expect(first.depends_on).toMatchObject({
      postgres: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
      'create-bucket': { condition: 'service_completed_successfully' },
    });
    for (const [, gateway] of others)
      expect(gateway.depends_on).toEqual({ 'gateway-1': { condition: 'service_healthy' } });
    // Exactly one process serves the SSH proxy's sockets; the others only allocate ports (docs/deployment.md).
    const proxies = gateways.filter(([, g]) => processEnv(g, documentedDotEnv()).SSH_PROXY !== 'off');
    expect(proxies.map(([name]) => name)).toEqual(['gateway-1']);
  });

  it("passes the service's start-up checks in production with the documented .env", async () => {
    for (const [service, gateway] of gateways) {
      const config = loadConfig(processEnv(gateway, documentedDotEnv()));
      expect(config, service).toMatchObject({ NODE_ENV: 'production', BLOB_STORE: 's3', S3_BUCKET: 'cgw-files' });
      expect(config.FILE_LINK_SECRET?.length).toBeGreaterThanOrEqual(32);
      const contract = loadContract();
      await expect(loadCatalog(config, contract)).resolves.toBeDefined();
      await expect(loadUpstreams(config)).resolves.toBeDefined();
    }
  }, 30_000);

  it('refuses the shipped sandbox routes in production unless the operator allows them', async () => {
    const { SANDBOX_IN_PRODUCTION, ...withoutTrialLine } = documentedDotEnv();
    expect(SANDBOX_IN_PRODUCTION).toBe('allow');
    const config = loadConfig(processEnv(gateways[0]![1], withoutTrialLine));
    expect(config.SANDBOX_IN_PRODUCTION).toBe('refuse');
    await expect(loadUpstreams(config)).rejects.toThrow(/sandbox would answer real callers/);
  });
});
