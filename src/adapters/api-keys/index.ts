/**
 * The api-keys port: accounts and the API keys that act for them (SPEC 5).
 *
 * Keys are stored only as a SHA-256 hash of the whole key; the key itself is shown once, at creation.
 * Key rows outlive a hard-deleted account on purpose, so a caller holding such a key learns
 * `user_not_found` (SPEC 5.4) rather than `invalid_api_key`.
 */

export interface AccountRecord {
  id: string;
  email: string;
  createdAtMs: number;
  /** Personal discount on top of the public price, percent 0..100 (SPEC 2.5 user_discount_percent). */
  discountPercent: number;
  /** Per pricing-tier discounts that replace `discountPercent` for that tier (SPEC 2.5 user_tier_discounts). */
  tierDiscounts: Record<string, number>;
  /** Requests per minute over all the account's keys; null = the configured default (SPEC 8). */
  rateLimitPerMinute: number | null;
  /** Ruble billing switched on (SPEC 4.3): spend is priced in rubles at the rate of the lot it came from. */
  rubBilling: boolean;
  /** Set while an operator has locked the account (issue 26 item 8): its keys answer 403 account_locked. */
  lockedAtMs: number | null;
  /** The operator's note on why, kept with the lock. */
  lockReason: string | null;
  /**
   * What the account owes after a refund or a lost dispute took back money already spent (issue 27); while above 0
   * it makes no paid call, and its next deposits repay it first.
   */
  debtMicros: bigint;
}

/** The UTC period a key's spend limit counts over (docs/money.md "Key spend limits"). */
export type SpendPeriod = 'day' | 'week' | 'month';

/** At most `amountMicros` spent through the key per `period` (issue 26 item 6). */
export interface KeySpendLimit {
  amountMicros: bigint;
  period: SpendPeriod;
}

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  name: string;
  /** Shown in listings in place of the secret: the prefix and first characters, then the last four. */
  displayHint: string;
  createdAtMs: number;
  lastUsedAtMs: number | null;
  revokedAtMs: number | null;
  /** Requests per minute for this key; null = the configured default (SPEC 8). */
  rateLimitPerMinute: number | null;
  /** The `keys` scope: the key may create and revoke the account's keys. */
  managesKeys: boolean;
  /** null: the key spends whatever the account can pay. */
  spendLimit: KeySpendLimit | null;
}

/** What an incoming key hash resolves to; `account` is null once the account was hard-deleted. */
export interface KeyResolution {
  key: ApiKeyRecord;
  account: AccountRecord | null;
}

export interface NewAccount {
  id: string;
  email: string;
  createdAtMs: number;
}

export interface NewApiKey {
  id: string;
  accountId: string;
  name: string;
  hash: string;
  displayHint: string;
  createdAtMs: number;
  managesKeys: boolean;
  /** Absent: null (the configured default, no spend limit). */
  rateLimitPerMinute?: number | null;
  spendLimit?: KeySpendLimit | null;
}

/** The settings the key's owner may change (issue 26 item 6); an absent field is left as it is. */
export interface ApiKeyPatch {
  name?: string;
  rateLimitPerMinute?: number | null;
  spendLimit?: KeySpendLimit | null;
}

export type CreateAccountOutcome = { ok: true; account: AccountRecord } | { ok: false; reason: 'email_taken' };

export type SetAccountEmailOutcome = { ok: true } | { ok: false; reason: 'email_taken' | 'no_account' };

export interface ApiKeyStore {
  createAccount(input: NewAccount): Promise<CreateAccountOutcome>;
  getAccount(accountId: string): Promise<AccountRecord | null>;
  /** `email` lower-cased by the caller, as stored. */
  findAccountByEmail(email: string): Promise<AccountRecord | null>;
  /** The account's address changes (a confirmed change, issue 26 item 7); 'email_taken' when another holds it. */
  setAccountEmail(accountId: string, email: string): Promise<SetAccountEmailOutcome>;
  /** Hard delete: the account row goes; its keys stay so they answer `user_not_found`. Returns false if absent. */
  deleteAccount(accountId: string): Promise<boolean>;
  setDiscounts(accountId: string, discountPercent: number, tierDiscounts: Record<string, number>): Promise<boolean>;
  /** Changes the given settings only; false when the account does not exist. */
  updateAccountSettings(
    accountId: string,
    patch: { rateLimitPerMinute?: number | null; rubBilling?: boolean },
  ): Promise<boolean>;
  /** Keeps the first lock's time and reason when already locked; null when the account does not exist. */
  lockAccount(accountId: string, atMs: number, reason: string): Promise<AccountRecord | null>;
  /**
   * Adds `deltaMicros` (negative: a repayment) to the account's debt, once per `entryId`: a repeat changes nothing.
   * The debt never goes below 0. Answers the debt after, or null when the account does not exist.
   */
  changeDebt(accountId: string, entryId: string, deltaMicros: bigint, atMs: number): Promise<bigint | null>;
  /** Idempotent; null when the account does not exist. */
  unlockAccount(accountId: string): Promise<AccountRecord | null>;
  /** false when the key does not exist. */
  setKeyRateLimit(keyId: string, perMinute: number | null): Promise<boolean>;

  /** Changes the given settings only; null when the key does not exist. */
  updateKey(keyId: string, patch: ApiKeyPatch): Promise<ApiKeyRecord | null>;

  createKey(input: NewApiKey): Promise<ApiKeyRecord>;
  resolveKey(hash: string): Promise<KeyResolution | null>;
  /** Keys of one account, newest first, revoked ones included. */
  listKeys(accountId: string): Promise<ApiKeyRecord[]>;
  getKey(keyId: string): Promise<ApiKeyRecord | null>;
  /** Idempotent: revoking a revoked key keeps the first revocation time. Null when the key does not exist. */
  revokeKey(keyId: string, atMs: number): Promise<ApiKeyRecord | null>;
  /** Records use; writes may be batched by the caller, so times only move forward. */
  touchKeys(lastUsed: ReadonlyMap<string, number>): Promise<void>;

  /** A cheap round trip proving the backing store answers (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
