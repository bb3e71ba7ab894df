import type { AccountRecord, ApiKeyPatch, ApiKeyRecord, ApiKeyStore } from '../../adapters/api-keys/index.js';
import { DomainError } from '../../errors/domain-error.js';
import { newId } from '../../lib/ids.js';
import { displayHint, generateApiKey, hashApiKey } from '../keys/api-key-secret.js';

/**
 * Account and key use cases shared by the admin CLI and the HTTP handlers. Each takes the store first and
 * an optional clock last (`now`, milliseconds since the epoch) so tests can pin time.
 */
export type Clock = () => number;

const MAX_EMAIL_LENGTH = 254; // RFC 5321 path limit
const MAX_KEY_NAME_LENGTH = 100;
const MAX_LOCK_REASON_LENGTH = 500;
export const DEFAULT_KEY_NAME = 'default';

/** A rough check only: one `@`, no spaces, a dot in the domain. Delivery is the real proof. */
export function normaliseEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (email.length > MAX_EMAIL_LENGTH || !/^[^\s@]+@[^\s@]+\.[^\s@.]+$/.test(email)) {
    throw new DomainError('invalid_email', `Not a valid email address: ${JSON.stringify(raw)}`);
  }
  return email;
}

/** Creates an account with no discount; emails are compared lower-cased. Throws `email_taken` or `invalid_email`. */
export async function createAccount(
  store: ApiKeyStore,
  input: { email: string },
  now: Clock = Date.now,
): Promise<AccountRecord> {
  const email = normaliseEmail(input.email);
  const outcome = await store.createAccount({ id: newId('acc'), email, createdAtMs: now() });
  if (!outcome.ok) throw new DomainError('email_taken', `An account with email ${email} already exists`);
  return outcome.account;
}

export async function getAccountOrThrow(store: ApiKeyStore, accountId: string): Promise<AccountRecord> {
  const account = await store.getAccount(accountId);
  if (!account) throw new DomainError('account_not_found', `No account ${accountId}`);
  return account;
}

/**
 * Issues a new key; `secret` is returned once and never stored (SPEC 5.1). Throws `account_not_found`. A key
 * the operator issues (admin CLI: an account's first key) holds the `keys` scope; one minted through the API
 * holds it only when asked for (docs/decisions.md: API keys). `limits`: the key's own rate and spend limits.
 */
export async function issueKey(
  store: ApiKeyStore,
  accountId: string,
  name: string = DEFAULT_KEY_NAME,
  now: Clock = Date.now,
  scopes: { managesKeys: boolean } = { managesKeys: true },
  limits: Pick<ApiKeyPatch, 'rateLimitPerMinute' | 'spendLimit'> = {},
): Promise<{ record: ApiKeyRecord; secret: string }> {
  await getAccountOrThrow(store, accountId);
  const secret = generateApiKey();
  const record = await store.createKey({
    id: newId('key'),
    accountId,
    name: name.trim().slice(0, MAX_KEY_NAME_LENGTH) || DEFAULT_KEY_NAME,
    hash: hashApiKey(secret),
    displayHint: displayHint(secret),
    createdAtMs: now(),
    managesKeys: scopes.managesKeys,
    ...limits,
  });
  return { record, secret };
}

/**
 * Revokes a key (SPEC 5.1: keys are revocable independently). `accountId` null means an administrator;
 * otherwise a key of another account is reported as not found, so key ids of others cannot be probed.
 * Revoking twice keeps the first revocation time.
 */
export async function revokeKey(
  store: ApiKeyStore,
  accountId: string | null,
  keyId: string,
  now: Clock = Date.now,
): Promise<ApiKeyRecord> {
  const notFound = () => new DomainError('api_key_not_found', `No API key ${keyId}`);
  if (accountId !== null) {
    const key = await store.getKey(keyId);
    if (!key || key.accountId !== accountId) throw notFound();
  }
  const revoked = await store.revokeKey(keyId, now());
  if (!revoked) throw notFound();
  return revoked;
}

/**
 * An operator's lock (issue 26 item 8): every key of the account answers 403 account_locked until it is unlocked.
 * Locking a locked account keeps the first lock's time and reason. Throws `account_not_found`.
 */
export async function lockAccount(
  store: ApiKeyStore,
  accountId: string,
  reason: string,
  now: Clock = Date.now,
): Promise<AccountRecord> {
  const locked = await store.lockAccount(accountId, now(), reason.trim().slice(0, MAX_LOCK_REASON_LENGTH));
  if (!locked) throw new DomainError('account_not_found', `No account ${accountId}`);
  return locked;
}

export async function unlockAccount(store: ApiKeyStore, accountId: string): Promise<AccountRecord> {
  const unlocked = await store.unlockAccount(accountId);
  if (!unlocked) throw new DomainError('account_not_found', `No account ${accountId}`);
  return unlocked;
}

/** An account by id, or by email when the text holds an `@` (emails are stored lower-cased). */
export async function findAccount(store: ApiKeyStore, idOrEmail: string): Promise<AccountRecord> {
  const text = idOrEmail.trim();
  const account = text.includes('@')
    ? await store.findAccountByEmail(text.toLowerCase())
    : await store.getAccount(text);
  if (!account) throw new DomainError('account_not_found', `No account ${text}`);
  return account;
}

/** Hard delete; the keys stay behind so their holders get `user_not_found` (SPEC 5.4). */
export async function deleteAccount(store: ApiKeyStore, accountId: string): Promise<void> {
  if (!(await store.deleteAccount(accountId))) throw new DomainError('account_not_found', `No account ${accountId}`);
}

function checkPercent(label: string, value: number): void {
  if (!Number.isFinite(value) || value < 0 || value > 100) {
    throw new DomainError('invalid_discount', `${label} must be a percent between 0 and 100 (got ${value})`);
  }
}

/**
 * Sets the personal discounts (SPEC 2.5 user_discount_percent / user_tier_discounts). Tier entries replace
 * the flat discount for their tier; the whole tier map is replaced, not merged.
 */
export async function setDiscounts(
  store: ApiKeyStore,
  accountId: string,
  input: { discountPercent: number; tierDiscounts?: Record<string, number> },
): Promise<AccountRecord> {
  const tierDiscounts = input.tierDiscounts ?? {};
  checkPercent('discount', input.discountPercent);
  for (const [tier, percent] of Object.entries(tierDiscounts)) {
    if (tier.trim() === '') throw new DomainError('invalid_discount', 'A tier name must not be empty');
    checkPercent(`discount for tier ${tier}`, percent);
  }
  if (!(await store.setDiscounts(accountId, input.discountPercent, tierDiscounts))) {
    throw new DomainError('account_not_found', `No account ${accountId}`);
  }
  return getAccountOrThrow(store, accountId);
}
