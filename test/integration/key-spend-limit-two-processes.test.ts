/**
 * Issue 26 item 6 across processes: two gateway processes on one PostgreSQL never let a limited key spend past its
 * limit together. 40 concurrent paid calls with one key, spread over both: those whose worst case no longer fits
 * are refused with 402 `key_spend_limit_reached`, and what the key was charged stays within its limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlApiKeyStore } from '../../src/adapters/api-keys/sql.js';
import { SqlUsageLogStore } from '../../src/adapters/usage-log/sql.js';
import { spendPeriodBounds } from '../../src/domain/keys/spend-period.js';
import { type PostgresSchema, postgresSchema, TEST_POSTGRES_URL } from '../setup/databases.js';
import { expectCompatError } from '../setup/envelopes.js';
import { call } from '../setup/harness.js';
import { openAccounts, type ServerProcess, spawnGateway } from '../setup/server-process.js';
import { CHAT_PATH, MESSAGES } from './gateway-helpers.js';

const LIMIT_MICROS = 2_000n;

describe('key spend limits across two gateway processes (PostgreSQL)', () => {
  let pg: PostgresSchema;
  let servers: ServerProcess[] = [];
  let account: { accountId: string; apiKey: string };
  let keyId: string;

  beforeAll(async () => {
    pg = await postgresSchema();
    account = (await openAccounts(pg.db, 1, 10_000_000n))[0]!;
    const store = new SqlApiKeyStore(pg.db);
    keyId = (await store.listKeys(account.accountId))[0]!.id;
    await store.updateKey(keyId, { spendLimit: { amountMicros: LIMIT_MICROS, period: 'month' } });
    const env = {
      ...process.env,
      DATABASE_URL: `${TEST_POSTGRES_URL}?options=-c%20search_path%3D${pg.schema}`,
      PORT: '0',
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_KEY_PER_MINUTE: '1000',
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

  it('40 concurrent calls over both: some served, the rest 402, and the key is never charged past its limit', async () => {
    // Each call holds max_tokens × $2/Mtok (200 micro-USD) and a little for the prompt: about 9 fit in the limit.
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        call(servers[i % 2]!.baseUrl, 'POST', CHAT_PATH, {
          key: account.apiKey,
          body: { model: 'gpt-5-mini', messages: MESSAGES, max_tokens: 100 },
        }),
      ),
    );
    const served = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status !== 200);
    expect(served.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    for (const response of refused) expectCompatError(response, 402, 'key_spend_limit_reached');
    // Summed per calendar month of the charge, so a run across a month's end still checks each period alone.
    const usage = new SqlUsageLogStore(pg.db);
    const lines = await usage.list(account.accountId, { keyId }, { limit: 100, offset: 0 });
    expect(lines).toHaveLength(served.length);
    const byPeriod = new Map<number, bigint>();
    for (const line of lines) {
      const start = spendPeriodBounds('month', line.createdAtMs).startMs;
      byPeriod.set(start, (byPeriod.get(start) ?? 0n) + line.costMicros);
    }
    for (const spent of byPeriod.values()) expect(spent).toBeLessThanOrEqual(LIMIT_MICROS);
  });
});
