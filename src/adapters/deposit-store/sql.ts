import type { Knex } from 'knex';
import type { Database } from '../../db/connect.js';
import { isUniqueViolation } from '../../db/unique-violation.js';
import type {
  CreateDepositOutcome,
  Credited,
  DepositAddress,
  DepositRecord,
  DepositStore,
  NewDeposit,
  Processor,
} from './index.js';
import { afterRefund } from './refunds.js';
import { type DepositRow, int, newDepositRow, toDeposit } from './sql-rows.js';

const REF_UNIQUE = ['deposits_processor_ref_unique', 'deposits.processor'] as const;
/** An index, or the address derived from it, taken by another account; or this account served first elsewhere. */
const ADDRESS_UNIQUES = [
  ['deposit_addresses_index_unique', 'deposit_addresses.derivation_index'],
  ['deposit_addresses_address_unique', 'deposit_addresses.address'],
  ['deposit_addresses_pkey', 'deposit_addresses.account_id'],
] as const;

/**
 * The deposit-store port over knex (migration 0032), on SQLite and PostgreSQL alike. Each change is one conditional
 * UPDATE on the status it expects, so of two concurrent writers one wins; unique keys refuse a second row for one
 * payment or transfer, and a second address for one account.
 */
export class SqlDepositStore implements DepositStore {
  private readonly knex: Knex;

  constructor(db: Database) {
    this.knex = db.knex;
  }

  async create(deposit: NewDeposit): Promise<CreateDepositOutcome> {
    const row = newDepositRow(deposit);
    try {
      await this.knex('deposits').insert(row);
    } catch (err) {
      if (isUniqueViolation(err, ...REF_UNIQUE)) return { ok: false, reason: 'ref_taken' };
      throw err;
    }
    return { ok: true, deposit: toDeposit(row) };
  }

  async get(id: string): Promise<DepositRecord | null> {
    return this.one({ id });
  }

  async findByRef(processor: Processor, processorRef: string): Promise<DepositRecord | null> {
    return this.one({ processor, processor_ref: processorRef });
  }

  async findByChargeRef(processor: Processor, chargeRef: string): Promise<DepositRecord | null> {
    return this.one({ processor, charge_ref: chargeRef });
  }

  private async one(where: Record<string, string>): Promise<DepositRecord | null> {
    const row = (await this.knex('deposits').where(where).first()) as DepositRow | undefined;
    return row ? toDeposit(row) : null;
  }

  async list(accountId: string, page: { limit: number; offset: number }): Promise<DepositRecord[]> {
    const rows = (await this.knex('deposits')
      .where('account_id', accountId)
      .orderBy([
        { column: 'created_at_ms', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(page.limit)
      .offset(page.offset)) as DepositRow[];
    return rows.map(toDeposit);
  }

  async scan(afterId: string | null, limit: number): Promise<DepositRecord[]> {
    const query = this.knex('deposits').orderBy('id').limit(limit);
    if (afterId !== null) query.where('id', '>', afterId);
    return ((await query) as DepositRow[]).map(toDeposit);
  }

  async attachCheckout(id: string, checkout: { processorRef: string; checkoutUrl: string }, atMs: number) {
    try {
      const changed = await this.knex('deposits')
        .where({ id, status: 'pending' })
        .whereNull('processor_ref')
        .update({ processor_ref: checkout.processorRef, checkout_url: checkout.checkoutUrl, updated_at_ms: atMs });
      return changed > 0;
    } catch (err) {
      if (isUniqueViolation(err, ...REF_UNIQUE)) return false;
      throw err;
    }
  }

  async markCredited(id: string, credited: Credited): Promise<boolean> {
    const transfer =
      credited.transfer === undefined
        ? {}
        : { processor_ref: credited.transfer.processorRef, tx_id: credited.transfer.txId };
    try {
      const changed = await this.knex('deposits')
        .where('id', id)
        .whereIn('status', ['pending', 'awaiting_transfer'])
        .update({
          ...transfer,
          status: 'credited',
          credited_micros: int(credited.creditedMicros),
          amount_minor: int(credited.amountMinor),
          fx_rate_rub_micro: int(credited.fxRateRubMicro),
          charge_ref: credited.chargeRef,
          credited_at_ms: credited.atMs,
          updated_at_ms: credited.atMs,
        });
      return changed > 0;
    } catch (err) {
      if (isUniqueViolation(err, ...REF_UNIQUE)) return false;
      throw err;
    }
  }

  async oldestAwaiting(accountId: string): Promise<DepositRecord | null> {
    const row = (await this.knex('deposits')
      .where({ account_id: accountId, status: 'awaiting_transfer' })
      .orderBy([
        { column: 'created_at_ms', order: 'asc' },
        { column: 'id', order: 'asc' },
      ])
      .first()) as DepositRow | undefined;
    return row ? toDeposit(row) : null;
  }

  async pendingToCheck(beforeMs: number, limit: number): Promise<DepositRecord[]> {
    const rows = (await this.knex('deposits')
      .where('status', 'pending')
      .whereNotNull('processor_ref')
      .andWhere('updated_at_ms', '<', beforeMs)
      .orderBy([
        { column: 'updated_at_ms', order: 'asc' },
        { column: 'id', order: 'asc' },
      ])
      .limit(limit)) as DepositRow[];
    return rows.map(toDeposit);
  }

  async touch(id: string, atMs: number): Promise<void> {
    await this.knex('deposits').where('id', id).andWhere('updated_at_ms', '<', atMs).update({ updated_at_ms: atMs });
  }

  async markClosed(id: string, status: 'failed' | 'expired', atMs: number): Promise<boolean> {
    return (await this.knex('deposits').where({ id, status: 'pending' }).update({ status, updated_at_ms: atMs })) > 0;
  }

  async addRefunded(id: string, micros: bigint, atMs: number): Promise<DepositRecord | null> {
    // Compare-and-set on what was refunded before, so two refunds landing at once both count.
    for (;;) {
      const current = await this.get(id);
      if (current === null || current.creditedMicros === null) return null;
      const next = afterRefund(current.creditedMicros, current.refundedMicros, micros);
      const changed = await this.knex('deposits')
        .where({ id, refunded_micros: int(current.refundedMicros) })
        .update({ refunded_micros: int(next.refundedMicros), status: next.status, updated_at_ms: atMs });
      if (changed > 0) return { ...current, ...next, updatedAtMs: atMs };
    }
  }

  async addressFor(accountId: string, derive: (index: number) => string): Promise<DepositAddress> {
    for (;;) {
      const existing = (await this.knex('deposit_addresses').where('account_id', accountId).first()) as
        | { derivation_index: number; address: string }
        | undefined;
      if (existing) return { accountId, index: Number(existing.derivation_index), address: existing.address };
      const next = (await this.knex('deposit_addresses').max({ top: 'derivation_index' }).first()) as {
        top: number | null;
      };
      const index = next.top === null ? 0 : Number(next.top) + 1;
      try {
        await this.knex('deposit_addresses').insert({
          account_id: accountId,
          derivation_index: index,
          address: derive(index),
        });
        return { accountId, index, address: derive(index) };
      } catch (err) {
        // Another process took this index, or gave this account its address first: read again.
        if (!ADDRESS_UNIQUES.some(([constraint, column]) => isUniqueViolation(err, constraint, column))) throw err;
      }
    }
  }

  async findAddress(address: string): Promise<DepositAddress | null> {
    const row = (await this.knex('deposit_addresses').where('address', address).first()) as
      | { account_id: string; derivation_index: number }
      | undefined;
    return row ? { accountId: row.account_id, index: Number(row.derivation_index), address } : null;
  }

  async cursor(chain: string): Promise<number | null> {
    const row = (await this.knex('chain_cursors').where('chain', chain).first()) as
      | { block_number: number | bigint }
      | undefined;
    return row ? Number(row.block_number) : null;
  }

  async setCursor(chain: string, blockNumber: number): Promise<void> {
    await this.knex('chain_cursors')
      .insert({ chain, block_number: blockNumber })
      .onConflict('chain')
      .merge({ block_number: blockNumber });
  }
}
