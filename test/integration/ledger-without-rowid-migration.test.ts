/**
 * Migration 0021 rebuilds three ledger tables as WITHOUT ROWID tables on SQLite. Every other SQLite test runs on the
 * rebuilt tables; this one proves the rebuild keeps what a database already holds, both ways, and keeps the
 * foreign key from allocations to transfers.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connect.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { down } from '../../src/db/migrations/0021-ledger-without-rowid.js';
import { sqliteMemory } from '../setup/databases.js';

const TABLES = ['ledger_transfers', 'usage_records', 'ledger_allocations'];

describe('migration 0021: ledger tables WITHOUT ROWID (SQLite)', () => {
  let db: Database;

  beforeEach(async () => {
    db = await sqliteMemory();
  });
  afterEach(() => db.knex.destroy());

  const shapes = async () =>
    Object.fromEntries(
      await Promise.all(
        TABLES.map(async (table) => [
          table,
          /WITHOUT ROWID\s*$/i.test(
            (await db.knex('sqlite_master').where({ type: 'table', name: table }).first('sql')).sql,
          ),
        ]),
      ),
    );
  const contents = async () =>
    Object.fromEntries(
      await Promise.all(
        TABLES.map(async (table) => [
          table,
          await db
            .knex(table)
            .select()
            .orderBy(table === 'ledger_allocations' ? ['transfer_id', 'seq'] : ['id']),
        ]),
      ),
    );
  const indexNames = async () =>
    (await db.knex('sqlite_master').where({ type: 'index' }).whereIn('tbl_name', TABLES).pluck('name')).sort();

  async function fill(): Promise<void> {
    const transfer = (id: string, kind: string) => ({
      id,
      account_id: 'acc_1',
      kind,
      status: 'posted',
      amount_micros: 500,
      posted_micros: 500,
      created_at_ms: 1,
      posted_at_ms: 1,
    });
    await db.knex('ledger_lots').insert({
      id: 'credit:1',
      account_id: 'acc_1',
      currency: 'USD',
      amount_micros: 1_000,
      remaining_micros: 500,
      fx_rate_rub_micro: 90_000_000,
      created_at_ms: 1,
    });
    await db
      .knex('ledger_transfers')
      .insert([transfer('credit:1', 'credit'), transfer('charge:req_b', 'debit'), transfer('charge:req_a', 'debit')]);
    await db.knex('ledger_allocations').insert({
      transfer_id: 'charge:req_a',
      seq: 0,
      lot_id: 'credit:1',
      amount_micros: 500,
      fx_rate_rub_micro: 90_000_000,
    });
    await db.knex('usage_records').insert({
      id: 'log_1',
      account_id: 'acc_1',
      key_id: 'key_1',
      request_id: 'req_a',
      model: 'm',
      kind: 'chat',
      endpoint: '/v1/chat/completions',
      prompt_tokens: 1,
      completion_tokens: 2,
      cached_tokens: 0,
      reasoning_tokens: 0,
      total_tokens: 3,
      cost_micros: 500,
      transfer_id: 'charge:req_a',
      billed_in_rub: false,
      created_at_ms: 1,
      duration_ms: 5,
      metadata: '{}',
    });
  }

  it('is applied by the migrations, keeping every index', async () => {
    expect(await shapes()).toEqual({ ledger_transfers: true, usage_records: true, ledger_allocations: true });
    expect(await indexNames()).toEqual([
      'ledger_transfers_account_posted_index',
      'ledger_transfers_pending_expiry_index',
      'ledger_transfers_refund_of_index',
      'usage_records_account_id_created_at_ms_index',
      'usage_records_key_id_created_at_ms_index',
    ]);
  });

  it('keeps the rows a database holds, down and up again (by the migrator), and the foreign key from allocations to transfers', async () => {
    await down(db.knex);
    await db.knex('knex_migrations').where({ name: '0021-ledger-without-rowid' }).delete();
    expect(await shapes()).toEqual({ ledger_transfers: false, usage_records: false, ledger_allocations: false });
    await fill();
    const before = await contents();
    // Through the migrator, as a deployment upgrades: outside a transaction, or dropping a referenced table would fail.
    await migrateToLatest(db);
    expect(await shapes()).toEqual({ ledger_transfers: true, usage_records: true, ledger_allocations: true });
    expect(await contents()).toEqual(before);
    expect(await db.knex.raw('PRAGMA foreign_keys')).toEqual([{ foreign_keys: 1 }]);
    await expect(
      db
        .knex('ledger_allocations')
        .insert({ transfer_id: 'charge:missing', seq: 0, lot_id: 'credit:1', amount_micros: 1, fx_rate_rub_micro: 1 }),
    ).rejects.toThrow(/FOREIGN KEY/);
    await expect(
      db.knex('ledger_transfers').insert({
        id: 'charge:req_a',
        account_id: 'acc_1',
        kind: 'debit',
        status: 'posted',
        amount_micros: 1,
        created_at_ms: 2,
      }),
    ).rejects.toThrow(/UNIQUE/);
  });
});
