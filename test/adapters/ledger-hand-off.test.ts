/**
 * A capture handed off to PostgreSQL (src/adapters/ledger/README.md "Handed off") survives the process that sent it:
 * a child process writes the capture and is killed with SIGKILL at that moment, and the capture is committed with
 * its usage line all the same. This is what lets billing answer a busy account's request before the commit.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresLedger } from '../../src/adapters/ledger/postgres.js';
import { SqlUsageLogStore } from '../../src/adapters/usage-log/sql.js';
import { newId } from '../../src/lib/ids.js';
import { type PostgresSchema, postgresSchema, TEST_POSTGRES_URL } from '../setup/databases.js';
import { pollUntil } from '../setup/polling.js';
import { line, ok, RUB_90, T0, YEAR_MS } from './ledger-fixtures.js';

let pg: PostgresSchema;
beforeAll(async () => {
  pg = await postgresSchema();
});
afterAll(() => pg.drop());

describe('a capture handed off to PostgreSQL', () => {
  it('is committed with its usage line though the process that sent it was killed at the hand-off', async () => {
    const ledger = postgresLedger(pg.db);
    const accountId = newId('acc');
    ok(
      await ledger.credit({
        id: newId('cr'),
        accountId,
        amountMicros: 100_000n,
        nowMs: T0,
        lot: { currency: 'USD', fxRateRubMicro: RUB_90 },
      }),
    );
    const lease = ok(
      await ledger.hold({ id: newId('lease'), accountId, amountMicros: 50_000n, nowMs: T0, ttlMs: YEAR_MS }),
    );
    const capture = { id: newId('chg'), holdId: lease.hold.id, amount: '7000', usage: line(), nowMs: T0 + 10 };

    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'test/fixtures/ledger-hand-off-child.ts',
        TEST_POSTGRES_URL,
        pg.schema,
        JSON.stringify(capture),
      ],
      { stdio: ['ignore', 'inherit', 'inherit'] },
    );
    const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
    expect({ code, signal }).toEqual({ code: null, signal: 'SIGKILL' });

    const landed = await pollUntil(
      () => ledger.getTransfer(capture.id),
      (t) => t !== null,
      { withinMs: 10_000 },
    );
    expect(landed).toMatchObject({ kind: 'capture', postedMicros: 7_000n, holdId: lease.hold.id });
    const usage = await new SqlUsageLogStore(pg.db).list(accountId, {}, { limit: 10, offset: 0 });
    expect(usage.map((u) => [u.id, u.costMicros])).toEqual([[capture.usage.id, 7_000n]]);
    expect(await ledger.getHold(lease.hold.id)).toMatchObject({ status: 'pending', amountMicros: 43_000n });
  });
});
