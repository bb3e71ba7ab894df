import type { Knex } from 'knex';
import type { Database } from '../../db/connect.js';
import type {
  AccountRecord,
  ApiKeyPatch,
  ApiKeyRecord,
  ApiKeyStore,
  CreateAccountOutcome,
  KeyResolution,
  NewAccount,
  NewApiKey,
  SetAccountEmailOutcome,
} from './index.js';
import {
  ACCOUNT_COLUMNS,
  type AccountRow,
  isEmailTaken,
  KEY_COLUMNS,
  type KeyRow,
  type ResolvedRow,
  spendLimitColumns,
  toAccount,
  toKey,
} from './sql-rows.js';

/**
 * The api-keys port over knex, on SQLite and PostgreSQL alike (the schema is migration 0001, with later columns).
 *
 * Ownership: the caller passes in a `Database` and keeps owning it, so `close()` is a no-op unless the store
 * was told it owns the database (`{ ownsDatabase: true }`), in which case it destroys the knex pool.
 */
export class SqlApiKeyStore implements ApiKeyStore {
  private readonly knex: Knex;
  private readonly ownsDatabase: boolean;

  constructor(db: Database, options: { ownsDatabase?: boolean } = {}) {
    this.knex = db.knex;
    this.ownsDatabase = options.ownsDatabase ?? false;
  }

  async createAccount(input: NewAccount): Promise<CreateAccountOutcome> {
    const row = {
      id: input.id,
      email: input.email,
      created_at_ms: input.createdAtMs,
      discount_percent: 0,
      tier_discounts: '{}',
      rate_limit_per_minute: null,
      rub_billing: false,
      locked_at_ms: null,
      lock_reason: null,
      debt_micros: 0,
    };
    try {
      await this.knex('accounts').insert(row);
    } catch (err) {
      if (isEmailTaken(err)) return { ok: false, reason: 'email_taken' };
      throw err;
    }
    return { ok: true, account: toAccount(row) };
  }

  async getAccount(accountId: string): Promise<AccountRecord | null> {
    const row = (await this.knex('accounts').select(ACCOUNT_COLUMNS).where('id', accountId).first()) as
      | AccountRow
      | undefined;
    return row ? toAccount(row) : null;
  }

  async findAccountByEmail(email: string): Promise<AccountRecord | null> {
    const row = (await this.knex('accounts').select(ACCOUNT_COLUMNS).where('email', email).first()) as
      | AccountRow
      | undefined;
    return row ? toAccount(row) : null;
  }

  async setAccountEmail(accountId: string, email: string): Promise<SetAccountEmailOutcome> {
    try {
      const changed = await this.knex('accounts').where('id', accountId).update({ email });
      return changed > 0 ? { ok: true } : { ok: false, reason: 'no_account' };
    } catch (err) {
      if (isEmailTaken(err)) return { ok: false, reason: 'email_taken' };
      throw err;
    }
  }

  async deleteAccount(accountId: string): Promise<boolean> {
    // Keys are left in place on purpose (index.ts, SPEC 5.4).
    return (await this.knex('accounts').where('id', accountId).del()) > 0;
  }

  async setDiscounts(
    accountId: string,
    discountPercent: number,
    tierDiscounts: Record<string, number>,
  ): Promise<boolean> {
    const changed = await this.knex('accounts')
      .where('id', accountId)
      .update({ discount_percent: discountPercent, tier_discounts: JSON.stringify(tierDiscounts) });
    return changed > 0;
  }

  async updateAccountSettings(
    accountId: string,
    patch: { rateLimitPerMinute?: number | null; rubBilling?: boolean },
  ): Promise<boolean> {
    const changes: Record<string, unknown> = {};
    if (patch.rateLimitPerMinute !== undefined) changes.rate_limit_per_minute = patch.rateLimitPerMinute;
    if (patch.rubBilling !== undefined) changes.rub_billing = patch.rubBilling;
    if (Object.keys(changes).length === 0) return (await this.getAccount(accountId)) !== null;
    return (await this.knex('accounts').where('id', accountId).update(changes)) > 0;
  }

  async lockAccount(accountId: string, atMs: number, reason: string): Promise<AccountRecord | null> {
    // Conditional update: a second lock (even a concurrent one) leaves the first one's time and reason in place.
    await this.knex('accounts')
      .where('id', accountId)
      .whereNull('locked_at_ms')
      .update({ locked_at_ms: atMs, lock_reason: reason });
    return this.getAccount(accountId);
  }

  async changeDebt(accountId: string, entryId: string, deltaMicros: bigint, atMs: number): Promise<bigint | null> {
    return this.knex.transaction(async (trx) => {
      const account = (await trx('accounts').where('id', accountId).forUpdate().first('debt_micros')) as
        | { debt_micros: number | bigint | string }
        | undefined;
      if (account === undefined) return null;
      const before = BigInt(account.debt_micros);
      // The account row is locked (PostgreSQL) or the writer is alone (SQLite): an entry is seen or added whole.
      if ((await trx('account_debt_entries').where('id', entryId).first('id')) !== undefined) return before;
      const entry = { id: entryId, account_id: accountId, delta_micros: deltaMicros.toString(), created_at_ms: atMs };
      await trx('account_debt_entries').insert(entry);
      const after = before + deltaMicros > 0n ? before + deltaMicros : 0n;
      await trx('accounts').where('id', accountId).update({ debt_micros: after.toString() });
      return after;
    });
  }

  async unlockAccount(accountId: string): Promise<AccountRecord | null> {
    await this.knex('accounts').where('id', accountId).update({ locked_at_ms: null, lock_reason: null });
    return this.getAccount(accountId);
  }

  async setKeyRateLimit(keyId: string, perMinute: number | null): Promise<boolean> {
    return (await this.knex('api_keys').where('id', keyId).update({ rate_limit_per_minute: perMinute })) > 0;
  }

  async updateKey(keyId: string, patch: ApiKeyPatch): Promise<ApiKeyRecord | null> {
    const changes: Record<string, unknown> = {};
    if (patch.name !== undefined) changes.name = patch.name;
    if (patch.rateLimitPerMinute !== undefined) changes.rate_limit_per_minute = patch.rateLimitPerMinute;
    if (patch.spendLimit !== undefined) Object.assign(changes, spendLimitColumns(patch.spendLimit));
    if (Object.keys(changes).length > 0) await this.knex('api_keys').where('id', keyId).update(changes);
    return this.getKey(keyId);
  }

  async createKey(input: NewApiKey): Promise<ApiKeyRecord> {
    const row = {
      id: input.id,
      account_id: input.accountId,
      name: input.name,
      key_hash: input.hash,
      display_hint: input.displayHint,
      created_at_ms: input.createdAtMs,
      last_used_at_ms: null,
      revoked_at_ms: null,
      rate_limit_per_minute: input.rateLimitPerMinute ?? null,
      manages_keys: input.managesKeys,
      ...spendLimitColumns(input.spendLimit ?? null),
    };
    await this.knex('api_keys').insert(row);
    return toKey(row);
  }

  /** One round trip on the authentication path: the key and its account (null once hard-deleted). */
  async resolveKey(hash: string): Promise<KeyResolution | null> {
    const row = (await this.knex('api_keys as k')
      .leftJoin('accounts as a', 'a.id', 'k.account_id')
      .select([...KEY_COLUMNS.map((c) => `k.${c}`), ...ACCOUNT_COLUMNS.map((c) => `a.${c} as acc_${c}`)])
      .where('k.key_hash', hash)
      .first()) as ResolvedRow | undefined;
    if (!row) return null;
    const accountRow = Object.fromEntries(ACCOUNT_COLUMNS.map((c) => [c, row[`acc_${c}` as keyof ResolvedRow]]));
    return { key: toKey(row), account: row.acc_id === null ? null : toAccount(accountRow as unknown as AccountRow) };
  }

  async listKeys(accountId: string): Promise<ApiKeyRecord[]> {
    const rows = (await this.knex('api_keys')
      .select(KEY_COLUMNS)
      .where('account_id', accountId)
      .orderBy([
        { column: 'created_at_ms', order: 'desc' },
        { column: 'id', order: 'desc' }, // deterministic ties, same rule as the memory twin
      ])) as KeyRow[];
    return rows.map(toKey);
  }

  async getKey(keyId: string): Promise<ApiKeyRecord | null> {
    const row = (await this.knex('api_keys').select(KEY_COLUMNS).where('id', keyId).first()) as KeyRow | undefined;
    return row ? toKey(row) : null;
  }

  async revokeKey(keyId: string, atMs: number): Promise<ApiKeyRecord | null> {
    // Conditional update: a second revocation (even a concurrent one) leaves the first time in place.
    await this.knex('api_keys').where('id', keyId).whereNull('revoked_at_ms').update({ revoked_at_ms: atMs });
    return this.getKey(keyId);
  }

  async touchKeys(lastUsed: ReadonlyMap<string, number>): Promise<void> {
    if (lastUsed.size === 0) return;
    // One transaction per batch (DESIGN 8: usage writes batched off the request path); times only move forward
    // because batches from several processes may arrive out of order.
    await this.knex.transaction(async (trx) => {
      for (const [keyId, atMs] of lastUsed) {
        await trx('api_keys')
          .where('id', keyId)
          .andWhere((q) => q.whereNull('last_used_at_ms').orWhere('last_used_at_ms', '<', atMs))
          .update({ last_used_at_ms: atMs });
      }
    });
  }

  async ping(): Promise<void> {
    await this.knex.raw('select 1');
  }

  async close(): Promise<void> {
    if (this.ownsDatabase) await this.knex.destroy();
  }
}
