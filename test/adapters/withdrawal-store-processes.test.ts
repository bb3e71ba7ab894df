/**
 * `create` is one serialized step across processes on SQLite too (issue 27 item 4): two processes, each with its
 * own connection to one database file, send withdrawal requests for one account at once. Two connections inside one
 * process cannot show it: better-sqlite3 waits for a lock synchronously, so the holder could never finish.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlWithdrawalStore } from '../../src/adapters/withdrawal-store/sql.js';
import { connectDatabase, type Database } from '../../src/db/connect.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { newId } from '../../src/lib/ids.js';
import type { Outcome, Plan } from '../fixtures/withdrawal-requests.js';
import { DAY_START, T0 } from './withdrawal-store.conformance.js';

/** A requester process, answered once it is connected and waiting; `results` once it has printed them. */
async function startRequester(plan: Plan): Promise<{ child: ChildProcess; results: Promise<Outcome[]> }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/fixtures/withdrawal-requests.ts', JSON.stringify(plan)],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`requester exited ${code}: ${stderr}`)))),
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.startsWith('ready\n')) resolve();
    });
    exited.then(() => reject(new Error(`requester exited before it was ready: ${stderr}`)), reject);
  });
  const results = exited.then(() => JSON.parse(stdout.slice('ready\n'.length)) as Outcome[]);
  return { child, results };
}

describe('WithdrawalStore on SQLite: two processes on one database file', () => {
  let dir: string;
  let db: Database;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cgw-withdrawals-'));
    db = connectDatabase(`sqlite:${join(dir, 'gateway.db')}`);
    await migrateToLatest(db);
  });
  afterAll(async () => {
    await db?.knex.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('20 concurrent requests, each alone within the account’s total: exactly ⌊cap / amount⌋ pass', async () => {
    const plan: Plan = {
      file: db.file!,
      accountId: newId('acc'),
      requests: 10,
      amountMicros: '1000000',
      feeMicros: '100000',
      accountTotalMicros: '8200000',
      dayStartMs: DAY_START,
      createdAtMs: T0,
    };
    const requesters = await Promise.all([startRequester(plan), startRequester(plan)]);
    for (const { child } of requesters) child.stdin!.end('go\n');
    const outcomes = (await Promise.all(requesters.map((r) => r.results))).flat();
    expect(outcomes).toHaveLength(20);
    expect(outcomes.filter((o) => o.ok)).toHaveLength(7); // ⌊8.2 / 1.1⌋
    for (const o of outcomes.filter((o) => !o.ok))
      expect(o).toEqual({ ok: false, reason: 'account_total', remainingMicros: '500000' });
    expect(await new SqlWithdrawalStore(db).activeTotal(plan.accountId)).toBe(7_700_000n);
  }, 60_000);
});
