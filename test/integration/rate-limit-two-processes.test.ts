/**
 * SPEC 8 across processes: two gateway processes sharing one Redis and one PostgreSQL enforce one sliding
 * window per key. 130 rapid calls with one key, spread over both: exactly 120 pass, 10 get 429.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlApiKeyStore } from '../../src/adapters/api-keys/sql.js';
import { createAccount, issueKey } from '../../src/domain/accounts/accounts.js';
import { type PostgresSchema, postgresSchema, TEST_POSTGRES_URL } from '../setup/databases.js';
import { expectCompatError } from '../setup/envelopes.js';
import { call } from '../setup/harness.js';
import { spawnGateway } from '../setup/server-process.js';

describe('rate limits across two gateway processes (Redis + PostgreSQL)', () => {
  let pg: PostgresSchema;
  let servers: { child: ChildProcess; baseUrl: string }[] = [];
  let apiKey: string;

  beforeAll(async () => {
    pg = await postgresSchema();
    const store = new SqlApiKeyStore(pg.db);
    const account = await createAccount(store, { email: `two-processes-${Date.now()}@example.com` });
    apiKey = (await issueKey(store, account.id)).secret;
    const env = {
      ...process.env,
      DATABASE_URL: `${TEST_POSTGRES_URL}?options=-c%20search_path%3D${pg.schema}`,
      REDIS_URL: 'redis://127.0.0.1:6379',
      PORT: '0',
      LOG_LEVEL: 'info',
      NODE_ENV: 'production',
      SANDBOX_IN_PRODUCTION: 'allow', // the default upstreams file routes every model to the sandbox
    };
    servers = await Promise.all([spawnGateway(env), spawnGateway(env)]);
  });

  afterAll(async () => {
    for (const server of servers) server.child.kill('SIGTERM');
    await Promise.all(
      servers.map((s) => (s.child.exitCode === null ? new Promise((r) => s.child.once('exit', r)) : undefined)),
    );
    await pg?.drop();
  });

  it('130 rapid calls with one key: exactly 120 succeed and 10 get 429 rate_limit_per_key with Retry-After', async () => {
    const responses = await Promise.all(
      Array.from({ length: 130 }, (_, i) => call(servers[i % 2]!.baseUrl, 'GET', '/v1/compat/models', { key: apiKey })),
    );
    const ok = responses.filter((r) => r.status === 200);
    const limited = responses.filter((r) => r.status === 429);
    expect(ok).toHaveLength(120);
    expect(limited).toHaveLength(10);
    for (const response of limited) {
      expectCompatError(response, 429, 'rate_limit_per_key');
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(response.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      expect(response.headers.get('x-ratelimit-remaining')).toBe('0');
    }
    expect(ok.every((r) => r.headers.get('x-ratelimit-limit') === '120')).toBe(true);
    // Both processes answered, and both refused: the window is one window.
    const servedBy = (r: (typeof responses)[number]) => responses.indexOf(r) % 2;
    expect(new Set(ok.map(servedBy)).size).toBe(2);
  });
});
