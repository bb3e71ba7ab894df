import type { Knex } from 'knex';
import type { Database } from '../../db/connect.js';
import { isUniqueViolation } from '../../db/unique-violation.js';
import { type ActiveSums, firstExceededCap } from './caps.js';
import {
  ACTIVE_WITHDRAWAL_STATUSES,
  type CapRefusal,
  type CreateWithdrawalOutcome,
  type NewWithdrawal,
  type SignedTransaction,
  type WithdrawalAddress,
  type WithdrawalCaps,
  type WithdrawalChange,
  type WithdrawalRecord,
  type WithdrawalStatus,
  type WithdrawalStore,
} from './index.js';
import {
  addressRow,
  changeColumns,
  newWithdrawalRow,
  toAddress,
  toWithdrawal,
  type WithdrawalAddressRow,
  type WithdrawalRow,
} from './sql-rows.js';

const ADDRESS_UNIQUE = ['withdrawal_addresses_account_address_unique', 'withdrawal_addresses.address'] as const;
const OLDEST_FIRST = [
  { column: 'created_at_ms', order: 'asc' },
  { column: 'id', order: 'asc' },
] as const;
const NEWEST_FIRST = [
  { column: 'created_at_ms', order: 'desc' },
  { column: 'id', order: 'desc' },
] as const;

/**
 * The withdrawal-store port over knex (migration 0034), on SQLite and PostgreSQL alike. `create` checks the caps
 * and inserts under the one gate row's lock, so requests from any number of processes are admitted one at a time,
 * each seeing every withdrawal admitted before it; every state change is one conditional UPDATE on the states it
 * expects, so of two concurrent writers one wins.
 */
export class SqlWithdrawalStore implements WithdrawalStore {
  private readonly knex: Knex;
  private readonly postgres: boolean;

  constructor(db: Database) {
    this.knex = db.knex;
    this.postgres = db.kind === 'postgres';
  }

  async addAddress(address: WithdrawalAddress): Promise<{ ok: true } | { ok: false; reason: 'address_taken' }> {
    try {
      await this.knex('withdrawal_addresses').insert(addressRow(address));
    } catch (err) {
      if (isUniqueViolation(err, ...ADDRESS_UNIQUE)) return { ok: false, reason: 'address_taken' };
      throw err;
    }
    return { ok: true };
  }

  async listAddresses(accountId: string): Promise<WithdrawalAddress[]> {
    const rows = (await this.knex('withdrawal_addresses')
      .where('account_id', accountId)
      .orderBy([...OLDEST_FIRST])) as WithdrawalAddressRow[];
    return rows.map(toAddress);
  }

  async getAddress(id: string): Promise<WithdrawalAddress | null> {
    const row = (await this.knex('withdrawal_addresses').where('id', id).first()) as WithdrawalAddressRow | undefined;
    return row ? toAddress(row) : null;
  }

  async removeAddress(accountId: string, id: string): Promise<boolean> {
    return (await this.knex('withdrawal_addresses').where({ id, account_id: accountId }).del()) > 0;
  }

  async create(withdrawal: NewWithdrawal, caps: WithdrawalCaps): Promise<CreateWithdrawalOutcome> {
    const row = newWithdrawalRow(withdrawal);
    return this.knex.transaction(async (trx) => {
      await this.lockGate(trx);
      // After the lock, so (READ COMMITTED on PostgreSQL) these read what every earlier holder committed.
      const sums = await activeSums(trx, withdrawal.accountId, caps.dayStartMs);
      const refused = firstExceededCap(sums, withdrawal.amountMicros + withdrawal.feeMicros, caps);
      if (refused) return refused;
      await trx('withdrawals').insert(row);
      return { ok: true, withdrawal: toWithdrawal(row) };
    });
  }

  async check(withdrawal: NewWithdrawal, caps: WithdrawalCaps): Promise<CapRefusal | null> {
    const sums = await activeSums(this.knex, withdrawal.accountId, caps.dayStartMs);
    return firstExceededCap(sums, withdrawal.amountMicros + withdrawal.feeMicros, caps);
  }

  /**
   * Holds the gate until the transaction ends. PostgreSQL: a row lock. SQLite: a first statement that writes, which
   * takes the database's one write lock (waiting out another process's within busy_timeout); a transaction that read
   * first would instead fail with SQLITE_BUSY when another process had committed since its read.
   */
  private async lockGate(trx: Knex.Transaction): Promise<void> {
    if (this.postgres) await trx('withdrawal_gate').where('id', 1).forUpdate().first('id');
    else await trx('withdrawal_gate').where('id', 1).update({ id: 1 });
  }

  async get(id: string): Promise<WithdrawalRecord | null> {
    const row = (await this.knex('withdrawals').where('id', id).first()) as WithdrawalRow | undefined;
    return row ? toWithdrawal(row) : null;
  }

  async list(accountId: string, page: { limit: number; offset: number }): Promise<WithdrawalRecord[]> {
    const rows = (await this.knex('withdrawals')
      .where('account_id', accountId)
      .orderBy([...NEWEST_FIRST])
      .limit(page.limit)
      .offset(page.offset)) as WithdrawalRow[];
    return rows.map(toWithdrawal);
  }

  async scan(afterId: string | null, limit: number): Promise<WithdrawalRecord[]> {
    const query = this.knex('withdrawals').orderBy('id').limit(limit);
    if (afterId !== null) query.where('id', '>', afterId);
    return ((await query) as WithdrawalRow[]).map(toWithdrawal);
  }

  async activeTotal(accountId: string): Promise<bigint> {
    const row = (await this.knex
      .select({ total: activeSum(this.knex, (q) => q.where('account_id', accountId)) })
      .first()) as { total: string };
    return BigInt(row.total);
  }

  async inStatus(statuses: readonly WithdrawalStatus[], limit: number): Promise<WithdrawalRecord[]> {
    const rows = (await this.knex('withdrawals')
      .whereIn('status', [...statuses])
      .orderBy([...OLDEST_FIRST])
      .limit(limit)) as WithdrawalRow[];
    return rows.map(toWithdrawal);
  }

  async transition(
    id: string,
    expected: readonly WithdrawalStatus[],
    change: WithdrawalChange,
    atMs: number,
  ): Promise<WithdrawalRecord | null> {
    const rows = (await this.knex('withdrawals')
      .where('id', id)
      .whereIn('status', [...expected])
      .update(changeColumns(change, atMs))
      .returning('*')) as WithdrawalRow[];
    return rows[0] ? toWithdrawal(rows[0]) : null;
  }

  async recordSignature(id: string, signed: SignedTransaction, atMs: number): Promise<WithdrawalRecord | null> {
    const rows = (await this.knex('withdrawals')
      .where({ id, status: 'approved' })
      .whereNull('signed_hex')
      .update({
        status: 'signed',
        txid: signed.txid,
        signed_hex: signed.hex,
        expiration_ms: signed.expirationMs,
        updated_at_ms: atMs,
      })
      .returning('*')) as WithdrawalRow[];
    return rows[0] ? toWithdrawal(rows[0]) : null;
  }
}

/** Σ amount + fee of the active withdrawals `narrow` selects, as text: no driver rounds it on the way. */
function activeSum(db: Knex, narrow: (query: Knex.QueryBuilder) => Knex.QueryBuilder): Knex.Raw {
  const sum = db('withdrawals')
    .select(db.raw('sum(amount_micros + fee_micros)'))
    .whereIn('status', [...ACTIVE_WITHDRAWAL_STATUSES]);
  return db.raw('cast(coalesce((?), 0) as text)', [narrow(sum)]);
}

/**
 * The sums the caps are checked on, read in one statement (one snapshot): the account's of all time, the account's
 * and everyone's created since the day began.
 */
async function activeSums(db: Knex, accountId: string, dayStartMs: number): Promise<ActiveSums> {
  const row = (await db
    .select({
      accountTotal: activeSum(db, (q) => q.where('account_id', accountId)),
      accountDaily: activeSum(db, (q) => q.where('account_id', accountId).andWhere('created_at_ms', '>=', dayStartMs)),
      globalDaily: activeSum(db, (q) => q.where('created_at_ms', '>=', dayStartMs)),
    })
    .first()) as { accountTotal: string; accountDaily: string; globalDaily: string };
  return {
    accountTotalMicros: BigInt(row.accountTotal),
    accountDailyMicros: BigInt(row.accountDaily),
    globalDailyMicros: BigInt(row.globalDaily),
  };
}
