import { createHash } from 'node:crypto';
import type { Knex } from 'knex';

/**
 * PostgreSQL functions are installed by content, not by migration (src/adapters/ledger/README.md "Upgrades"):
 * after the migrations, each set's SQL is hashed, and when the hash differs from the one `schema_functions`
 * records (migration 0027), the SQL runs and the new hash is recorded. Editing the SQL is all an upgrade needs:
 * an upgraded database then runs exactly what a fresh one does. SQLite has no functions.
 */
export interface FunctionSet {
  /** Also the prefix of every function the set owns: `ledger` owns `ledger_apply`, `ledger_op_hold`, ... */
  name: string;
  /** CREATE OR REPLACE FUNCTION statements, run as one script. */
  sql: string;
}

export function functionSetHash(sql: string): string {
  return createHash('sha256').update(sql).digest('hex');
}

/**
 * Installs `set` in the current schema unless its hash is already recorded there; answers whether it did. One
 * transaction, so a failing statement leaves the functions and the record as they were. It first locks
 * schema_functions: a second process starting at the same time waits, then reads the hash the first recorded
 * and has nothing to do (two concurrent CREATE OR REPLACE of one function fail with "tuple concurrently updated").
 */
export async function installFunctionSet(knex: Knex, set: FunctionSet, nowMs = Date.now()): Promise<boolean> {
  const sha256 = functionSetHash(set.sql);
  return knex.transaction(async (trx) => {
    await trx.raw('LOCK TABLE schema_functions IN SHARE ROW EXCLUSIVE MODE');
    const recorded = (await trx('schema_functions').where({ name: set.name }).first('sha256')) as
      | { sha256: string }
      | undefined;
    if (recorded?.sha256 === sha256) return false;
    await trx.raw(set.sql);
    await dropLeftovers(trx, set.name);
    await trx('schema_functions')
      .insert({ name: set.name, sha256, installed_at_ms: nowMs })
      .onConflict('name')
      .merge(['sha256', 'installed_at_ms']);
    return true;
  });
}

/**
 * A function of the set that the script just run did not write (renamed, removed, or its arguments changed: CREATE
 * OR REPLACE makes a new overload then) is a leftover of an older version, which a fresh install would not have.
 * Every statement of the script updated its pg_proc row, so the rows this transaction did not write are the ones.
 */
function dropLeftovers(trx: Knex.Transaction, setName: string): Promise<void> {
  return dropFunctions(trx, setName, { leftoversOnly: true });
}

/** Drops every function of the set in the current schema (the down of the migration that first needed them). */
export function dropFunctionSet(knex: Knex, setName: string): Promise<void> {
  return dropFunctions(knex, setName, { leftoversOnly: false });
}

async function dropFunctions(knex: Knex, setName: string, { leftoversOnly }: { leftoversOnly: boolean }) {
  const notWrittenNow = leftoversOnly ? 'AND p.xmin <> pg_current_xact_id()::xid' : '';
  const { rows } = (await knex.raw(
    `SELECT p.oid::regprocedure::text AS signature FROM pg_proc p
      WHERE p.pronamespace = current_schema()::regnamespace AND p.proname LIKE ? ${notWrittenNow}`,
    [`${setName}\\_%`],
  )) as { rows: { signature: string }[] };
  for (const { signature } of rows) await knex.raw(`DROP FUNCTION ${signature}`);
}
