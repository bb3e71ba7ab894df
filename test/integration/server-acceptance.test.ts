/**
 * The foundation's acceptance, end to end: the real server process (`src/main.ts`) and the real admin CLI
 * sharing one database, on the embedded SQLite default and on PostgreSQL.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase } from '../../src/db/connect.js';
import { TEST_POSTGRES_URL } from '../setup/databases.js';
import { expectCompatError } from '../setup/envelopes.js';
import { call, type JsonResponse } from '../setup/harness.js';
import { pollUntil } from '../setup/polling.js';
import { type ServerProcess, spawnGateway } from '../setup/server-process.js';

const run = promisify(execFile);
const TSX = 'node_modules/.bin/tsx';

async function admin(env: NodeJS.ProcessEnv, ...args: string[]): Promise<any> {
  const { stdout } = await run(TSX, ['src/cli/admin.ts', ...args], { env });
  return JSON.parse(stdout);
}

/**
 * Polls until the expected status: another process learns of a revocation within API_KEY_CACHE_TTL_MS (1 s); the
 * bound is wider, as a busy machine answers late.
 */
const untilStatus = (probe: () => Promise<JsonResponse>, status: number): Promise<JsonResponse> =>
  pollUntil(probe, (response) => response.status === status, { withinMs: 10_000, everyMs: 100 });

/** Waits, however long the machine takes (the test's own timeout bounds it), for what another process writes. */
async function until(check: () => boolean): Promise<void> {
  await pollUntil(async () => check(), Boolean, { withinMs: Number.POSITIVE_INFINITY });
}

const backends = [
  {
    name: 'SQLite file',
    setup: async (dir: string) => ({ url: `sqlite:${join(dir, 'gateway.sqlite')}`, drop: async () => undefined }),
  },
  {
    name: 'PostgreSQL',
    setup: async () => {
      const schema = `acc_${process.pid}_${Date.now()}`;
      const root = connectDatabase(TEST_POSTGRES_URL);
      await root.knex.raw('create schema ??', [schema]);
      const drop = async () => {
        await root.knex.raw('drop schema if exists ?? cascade', [schema]);
        await root.knex.destroy();
      };
      return { url: `${TEST_POSTGRES_URL}?options=-c%20search_path%3D${schema}`, drop };
    },
  },
];

describe.each(backends)('server and admin CLI on $name', ({ setup }) => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let server: ServerProcess;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cgw-acceptance-'));
    const database = await setup(dir);
    drop = database.drop;
    env = { ...process.env, DATABASE_URL: database.url, PORT: '0', LOG_LEVEL: 'info', API_KEY_CACHE_TTL_MS: '1000' };
    server = await spawnGateway(env);
  });

  afterAll(async () => {
    server?.child.kill('SIGTERM');
    if (server?.child.exitCode === null) await new Promise((r) => server.child.once('exit', r));
    await drop?.();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a CLI-made key works with both headers, is refused once revoked, and answers user_not_found after delete', async () => {
    const { account_id: accountId, api_key: apiKey } = await admin(
      env,
      'accounts',
      'create',
      '--email',
      `a${Date.now()}@example.com`,
    );
    const models = (key: string, keyHeader: 'bearer' | 'x-api-key') =>
      call(server.baseUrl, 'GET', '/v1/compat/models', { key, keyHeader });
    expect((await models(apiKey, 'bearer')).status).toBe(200);
    expect((await models(apiKey, 'x-api-key')).status).toBe(200);

    const second = await admin(env, 'keys', 'create', '--account', accountId);
    expect((await models(second.api_key, 'bearer')).status).toBe(200);
    await admin(env, 'keys', 'revoke', '--key-id', second.key_id);
    expectCompatError(await untilStatus(() => models(second.api_key, 'x-api-key'), 401), 401, 'api_key_revoked');
    expect((await models(apiKey, 'bearer')).status).toBe(200);

    await admin(env, 'accounts', 'delete', '--account', accountId);
    expectCompatError(await untilStatus(() => models(apiKey, 'bearer'), 404), 404, 'user_not_found');
  });

  it('says on stderr where it serves, on which database, and how to make the first account', async () => {
    const port = new URL(server.baseUrl).port;
    await until(() => server.stderr().includes('first account'));
    const banner = server.stderr();
    expect(banner).toContain(`compute-gateway serves http://127.0.0.1:${port} (`);
    // The admin CLI must name the same database as the server: the banner's command carries a non-default one.
    expect(banner).toContain(
      `DATABASE_URL='${env.DATABASE_URL}' npm run --silent admin -- accounts create --email you@example.com --balance-usd 10`,
    );
    expect(banner).toContain(`curl -s http://127.0.0.1:${port}/v1/account -H "Authorization: Bearer <api_key>"`);
  });

  it('serves the public catalog and blocks the python-requests User-Agent', async () => {
    const catalog = await call(server.baseUrl, 'GET', '/v1/llm/models/catalog');
    expect(catalog.body.data.models.length).toBeGreaterThanOrEqual(370);
    const blocked = await call(server.baseUrl, 'GET', '/v1/llm/models/catalog', {
      headers: { 'user-agent': 'python-requests/2.32.3' },
    });
    expect(blocked.status).toBe(403);
    expect(blocked.text).toBe('Forbidden');
  });
});
