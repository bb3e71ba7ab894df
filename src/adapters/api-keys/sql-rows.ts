import type { AccountRecord, ApiKeyRecord, KeySpendLimit, SpendPeriod } from './index.js';

/** The api-keys tables' rows and their mapping to records (sql.ts). */

/** Integer columns arrive as number (SQLite) or BigInt (pg int8, see connect.ts); the domain wants numbers. */
type Int = number | bigint | string;

export interface AccountRow {
  id: string;
  email: string;
  created_at_ms: Int;
  discount_percent: number | string;
  tier_discounts: string;
  rate_limit_per_minute: Int | null;
  rub_billing: boolean | number;
  locked_at_ms: Int | null;
  lock_reason: string | null;
  debt_micros: Int;
}

export interface KeyRow {
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
export type ResolvedRow = KeyRow & { [Column in keyof AccountRow as `acc_${Column}`]: AccountRow[Column] | null };

export const KEY_COLUMNS = [
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
export const ACCOUNT_COLUMNS = [
  'id',
  'email',
  'created_at_ms',
  'discount_percent',
  'tier_discounts',
  'rate_limit_per_minute',
  'rub_billing',
  'locked_at_ms',
  'lock_reason',
  'debt_micros',
];

export const nullableMs = (v: Int | null | undefined): number | null =>
  v === null || v === undefined ? null : Number(v);

function parseTierDiscounts(text: string): Record<string, number> {
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error('accounts.tier_discounts is not a JSON object');
  const out: Record<string, number> = {};
  for (const [tier, value] of Object.entries(parsed)) out[tier] = Number(value);
  return out;
}

export function toAccount(row: AccountRow): AccountRecord {
  return {
    id: row.id,
    email: row.email,
    createdAtMs: Number(row.created_at_ms),
    discountPercent: Number(row.discount_percent),
    tierDiscounts: parseTierDiscounts(row.tier_discounts),
    rateLimitPerMinute: nullableMs(row.rate_limit_per_minute),
    // SQLite stores booleans as 0/1.
    rubBilling: Boolean(row.rub_billing),
    lockedAtMs: nullableMs(row.locked_at_ms),
    lockReason: row.lock_reason,
    debtMicros: BigInt(row.debt_micros),
  };
}

export function toKey(row: KeyRow): ApiKeyRecord {
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
export function spendLimitColumns(limit: KeySpendLimit | null) {
  return { spend_limit_micros: limit?.amountMicros ?? null, spend_limit_period: limit?.period ?? null };
}

/** The unique index on accounts.email was hit: pg reports SQLSTATE 23505 + constraint, SQLite a message naming the column. */
export function isEmailTaken(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, constraint, message } = err as { code?: unknown; constraint?: unknown; message?: unknown };
  if (code === '23505') return constraint === 'accounts_email_unique';
  return code === 'SQLITE_CONSTRAINT_UNIQUE' && typeof message === 'string' && message.includes('accounts.email');
}
