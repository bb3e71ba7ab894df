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

interface StoredKey {
  record: ApiKeyRecord;
  hash: string;
}

const copyAccount = (a: AccountRecord): AccountRecord => ({ ...a, tierDiscounts: { ...a.tierDiscounts } });
const copyKey = (k: ApiKeyRecord): ApiKeyRecord => ({ ...k, spendLimit: k.spendLimit && { ...k.spendLimit } });

/** Same order as the SQL store: newest first, ties broken by id descending so both twins agree. */
function newestFirst(a: ApiKeyRecord, b: ApiKeyRecord): number {
  if (a.createdAtMs !== b.createdAtMs) return b.createdAtMs - a.createdAtMs;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/**
 * In-process twin of the SQL store for tests and single-process demos. Records are copied in and out, so a
 * caller mutating a returned object cannot change what is stored (the SQL store behaves the same way).
 */
export class MemoryApiKeyStore implements ApiKeyStore {
  private readonly accounts = new Map<string, AccountRecord>();
  private readonly accountIdByEmail = new Map<string, string>();
  private readonly keys = new Map<string, StoredKey>();
  private readonly keyIdByHash = new Map<string, string>();
  private readonly debtEntries = new Set<string>();

  async createAccount(input: NewAccount): Promise<CreateAccountOutcome> {
    if (this.accountIdByEmail.has(input.email)) return { ok: false, reason: 'email_taken' };
    // A repeated id is a bug in the caller, not a business outcome: the SQL store throws on it as well.
    if (this.accounts.has(input.id)) throw new Error(`account id ${input.id} already exists`);
    const account: AccountRecord = {
      ...input,
      discountPercent: 0,
      tierDiscounts: {},
      rateLimitPerMinute: null,
      rubBilling: false,
      lockedAtMs: null,
      lockReason: null,
      debtMicros: 0n,
    };
    this.accounts.set(account.id, account);
    this.accountIdByEmail.set(account.email, account.id);
    return { ok: true, account: copyAccount(account) };
  }

  async getAccount(accountId: string): Promise<AccountRecord | null> {
    const account = this.accounts.get(accountId);
    return account ? copyAccount(account) : null;
  }

  async findAccountByEmail(email: string): Promise<AccountRecord | null> {
    const accountId = this.accountIdByEmail.get(email);
    return accountId === undefined ? null : this.getAccount(accountId);
  }

  async setAccountEmail(accountId: string, email: string): Promise<SetAccountEmailOutcome> {
    const account = this.accounts.get(accountId);
    if (!account) return { ok: false, reason: 'no_account' };
    const holder = this.accountIdByEmail.get(email);
    if (holder !== undefined && holder !== accountId) return { ok: false, reason: 'email_taken' };
    this.accountIdByEmail.delete(account.email);
    this.accountIdByEmail.set(email, accountId);
    account.email = email;
    return { ok: true };
  }

  async deleteAccount(accountId: string): Promise<boolean> {
    const account = this.accounts.get(accountId);
    if (!account) return false;
    this.accounts.delete(accountId);
    this.accountIdByEmail.delete(account.email);
    return true; // keys stay on purpose (index.ts)
  }

  async setDiscounts(
    accountId: string,
    discountPercent: number,
    tierDiscounts: Record<string, number>,
  ): Promise<boolean> {
    const account = this.accounts.get(accountId);
    if (!account) return false;
    account.discountPercent = discountPercent;
    account.tierDiscounts = { ...tierDiscounts };
    return true;
  }

  async updateAccountSettings(
    accountId: string,
    patch: { rateLimitPerMinute?: number | null; rubBilling?: boolean },
  ): Promise<boolean> {
    const account = this.accounts.get(accountId);
    if (!account) return false;
    if (patch.rateLimitPerMinute !== undefined) account.rateLimitPerMinute = patch.rateLimitPerMinute;
    if (patch.rubBilling !== undefined) account.rubBilling = patch.rubBilling;
    return true;
  }

  async lockAccount(accountId: string, atMs: number, reason: string): Promise<AccountRecord | null> {
    const account = this.accounts.get(accountId);
    if (!account) return null;
    if (account.lockedAtMs === null) Object.assign(account, { lockedAtMs: atMs, lockReason: reason });
    return copyAccount(account);
  }

  async changeDebt(accountId: string, entryId: string, deltaMicros: bigint): Promise<bigint | null> {
    const account = this.accounts.get(accountId);
    if (!account) return null;
    if (this.debtEntries.has(entryId)) return account.debtMicros;
    this.debtEntries.add(entryId);
    const after = account.debtMicros + deltaMicros;
    account.debtMicros = after > 0n ? after : 0n;
    return account.debtMicros;
  }

  async unlockAccount(accountId: string): Promise<AccountRecord | null> {
    const account = this.accounts.get(accountId);
    if (!account) return null;
    Object.assign(account, { lockedAtMs: null, lockReason: null });
    return copyAccount(account);
  }

  async setKeyRateLimit(keyId: string, perMinute: number | null): Promise<boolean> {
    const stored = this.keys.get(keyId);
    if (!stored) return false;
    stored.record.rateLimitPerMinute = perMinute;
    return true;
  }

  async updateKey(keyId: string, patch: ApiKeyPatch): Promise<ApiKeyRecord | null> {
    const stored = this.keys.get(keyId);
    if (!stored) return null;
    const { name, rateLimitPerMinute, spendLimit } = patch;
    if (name !== undefined) stored.record.name = name;
    if (rateLimitPerMinute !== undefined) stored.record.rateLimitPerMinute = rateLimitPerMinute;
    if (spendLimit !== undefined) stored.record.spendLimit = spendLimit && { ...spendLimit };
    return copyKey(stored.record);
  }

  async createKey(input: NewApiKey): Promise<ApiKeyRecord> {
    if (this.keys.has(input.id)) throw new Error(`api key id ${input.id} already exists`);
    if (this.keyIdByHash.has(input.hash)) throw new Error('api key hash already exists');
    const { hash, rateLimitPerMinute, spendLimit, ...fields } = input;
    const record: ApiKeyRecord = copyKey({
      ...fields,
      lastUsedAtMs: null,
      revokedAtMs: null,
      rateLimitPerMinute: rateLimitPerMinute ?? null,
      spendLimit: spendLimit ?? null,
    });
    this.keys.set(record.id, { record, hash });
    this.keyIdByHash.set(hash, record.id);
    return copyKey(record);
  }

  async resolveKey(hash: string): Promise<KeyResolution | null> {
    const keyId = this.keyIdByHash.get(hash);
    const stored = keyId === undefined ? undefined : this.keys.get(keyId);
    if (!stored) return null;
    const account = this.accounts.get(stored.record.accountId);
    return { key: copyKey(stored.record), account: account ? copyAccount(account) : null };
  }

  async listKeys(accountId: string): Promise<ApiKeyRecord[]> {
    return [...this.keys.values()]
      .filter((k) => k.record.accountId === accountId)
      .map((k) => copyKey(k.record))
      .sort(newestFirst);
  }

  async getKey(keyId: string): Promise<ApiKeyRecord | null> {
    const stored = this.keys.get(keyId);
    return stored ? copyKey(stored.record) : null;
  }

  async revokeKey(keyId: string, atMs: number): Promise<ApiKeyRecord | null> {
    const stored = this.keys.get(keyId);
    if (!stored) return null;
    stored.record.revokedAtMs ??= atMs; // the first revocation time wins
    return copyKey(stored.record);
  }

  async touchKeys(lastUsed: ReadonlyMap<string, number>): Promise<void> {
    for (const [keyId, atMs] of lastUsed) {
      const record = this.keys.get(keyId)?.record;
      if (record && (record.lastUsedAtMs === null || record.lastUsedAtMs < atMs)) record.lastUsedAtMs = atMs;
    }
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {}
}
