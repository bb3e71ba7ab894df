import type { Knex } from 'knex';
import type { Database } from '../../db/connect.js';
import type {
  AccountRecord,
  ApiKeyPatch,
  ApiKeyRecord,
  ApiKeyStore,
  CreateAccountOutcome,
  KeyResolution,
  KeySpendLimit,
  NewAccount,
  NewApiKey,
  SpendPeriod,
} from './index.js';

/** Integer columns arrive as number (SQLite) or BigInt (pg int8, see connect.ts); the domain wants numbers. */
type Int = number | bigint | string;

interface AccountRow {
  id: string;
  email: string;
  created_at_ms: Int;
  discount_percent: number | string;
  tier_discounts: string;
  rate_limit_per_minute: Int | null;
  rub_billing: boolean | number;
}

interface KeyRow {
  id: string;
  account_id: string;
  name: string;
  display_hint: string;
  created_at_ms: Int;
  last_used_at_ms: Int | null;
  revoked_at_ms: Int | null;
  rate_limit_per_minute: Int | null;
  manages_keys: boolean | number;
  spend_limit_micros: Int | null;
  spend_limit_period: string | null;
}

/** resolveKey's single joined row: key columns as in KeyRow, account columns prefixed `acc_`, null when deleted. */
interface ResolvedRow extends KeyRow {
  acc_id: string | null;
  acc_email: string;
  acc_created_at_ms: Int;
  acc_discount_percent: number | string;
  acc_tier_discounts: string;
  acc_rate_limit_per_minute: Int | null;
  acc_rub_billing: boolean | number;
}

const KEY_COLUMNS = [
  'id',
  'account_id',
  'name',
  'display_hint',
  'created_at_ms',
  'last_used_at_ms',
  'revoked_at_ms',
  'rate_limit_per_minute',
  'manages_keys',
  'spend_limit_micros',
  'spend_limit_period',
];
const ACCOUNT_COLUMNS = [
  'id',
  'email',
  'created_at_ms',
  'discount_percent',
  'tier_discounts',
  'rate_limit_per_minute',
  'rub_billing',
];

const nullableMs = (v: Int | null | undefined): number | null => (v === null || v === undefined ? null : Number(v));

function parseTierDiscounts(text: string): Record<string, number> {
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error('accounts.tier_discounts is not a JSON object');
  const out: Record<string, number> = {};
  for (const [tier, value] of Object.entries(parsed)) out[tier] = Number(value);
  return out;
}

function toAccount(row: AccountRow): AccountRecord {
  return {
    id: row.id,
    email: row.email,
    createdAtMs: Number(row.created_at_ms),
    discountPercent: Number(row.discount_percent),
    tierDiscounts: parseTierDiscounts(row.tier_discounts),
    rateLimitPerMinute: nullableMs(row.rate_limit_per_minute),
    // SQLite stores booleans as 0/1.
    rubBilling: Boolean(row.rub_billing),
  };
}

function toKey(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    displayHint: row.display_hint,
    createdAtMs: Number(row.created_at_ms),
    lastUsedAtMs: nullableMs(row.last_used_at_ms),
    revokedAtMs: nullableMs(row.revoked_at_ms),
    rateLimitPerMinute: nullableMs(row.rate_limit_per_minute),
    managesKeys: Boolean(row.manages_keys),
    spendLimit:
      row.spend_limit_micros === null
        ? null
        : { amountMicros: BigInt(row.spend_limit_micros), period: row.spend_limit_period as SpendPeriod },
  };
}

/** The spend limit's two columns, written together. */
function spendLimitColumns(limit: KeySpendLimit | null) {
  return { spend_limit_micros: limit?.amountMicros ?? null, spend_limit_period: limit?.period ?? null };
}

/** The unique index on accounts.email was hit: pg reports SQLSTATE 23505 + constraint, SQLite a message naming the column. */
function isEmailTaken(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, constraint, message } = err as { code?: unknown; constraint?: unknown; message?: unknown };
  if (code === '23505') return constraint === 'accounts_email_unique';
  return code === 'SQLITE_CONSTRAINT_UNIQUE' && typeof message === 'string' && message.includes('accounts.email');
}

/**
 * The api-keys port over knex, on SQLite and PostgreSQL alike (the schema is migration 0001).
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
    const account =
      row.acc_id === null
        ? null
        : toAccount({
            id: row.acc_id,
            email: row.acc_email,
            created_at_ms: row.acc_created_at_ms,
            discount_percent: row.acc_discount_percent,
            tier_discounts: row.acc_tier_discounts,
            rate_limit_per_minute: row.acc_rate_limit_per_minute,
            rub_billing: row.acc_rub_billing,
          });
    return { key: toKey(row), account };
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
