/**
 * The operator's view of one account and its sign-in (issue 26 item 8: "`accounts show`, `accounts lock/unlock` and
 * session revocation"). Each names the account by id or by email (`--account acc_… | you@example.com`).
 */
import type { AccountRecord, ApiKeyRecord } from '../adapters/api-keys/index.js';
import { balanceMicros } from '../adapters/ledger/index.js';
import * as accounts from '../domain/accounts/accounts.js';
import { microsToUsd } from '../domain/billing/money.js';
import { isoOrNull } from '../lib/iso-time.js';
import { type Command, type Output, required, type Stores } from './command.js';

const ACCOUNT = { account: { type: 'string' } } as const;

function lockView(account: AccountRecord): Output {
  return {
    locked: account.lockedAtMs !== null,
    locked_at: isoOrNull(account.lockedAtMs),
    lock_reason: account.lockReason,
  };
}

function keyView(key: ApiKeyRecord): Output {
  return {
    key_id: key.id,
    name: key.name,
    hint: key.displayHint,
    created_at: isoOrNull(key.createdAtMs),
    last_used_at: isoOrNull(key.lastUsedAtMs),
    revoked: key.revokedAtMs !== null,
    revoked_at: isoOrNull(key.revokedAtMs),
  };
}

/** Sign-in state from the credential store; null for an account without a login (one the CLI created). */
async function loginView({ credentials }: Stores, accountId: string, nowMs: number): Promise<Output | null> {
  const login = await credentials.findLoginByAccount(accountId);
  if (login === null) return null;
  return {
    email_confirmed: login.emailConfirmedAtMs !== null,
    email_confirmed_at: isoOrNull(login.emailConfirmedAtMs),
    totp: login.totpSecret !== null,
    live_sessions: (await credentials.listLiveSessions(accountId, nowMs)).length,
  };
}

async function show(stores: Stores, idOrEmail: string): Promise<Output> {
  const account = await accounts.findAccount(stores.store, idOrEmail);
  const nowMs = Date.now();
  const [balance, keys, login] = await Promise.all([
    stores.ledger.getBalance(account.id),
    stores.store.listKeys(account.id),
    loginView(stores, account.id, nowMs),
  ]);
  return {
    account_id: account.id,
    email: account.email,
    created_at: isoOrNull(account.createdAtMs),
    balance_usd: microsToUsd(balanceMicros(balance)),
    held_usd: microsToUsd(balance.heldMicros),
    ...lockView(account),
    discount_percent: account.discountPercent,
    tier_discounts: account.tierDiscounts,
    requests_per_minute: account.rateLimitPerMinute,
    keys: keys.map(keyView),
    login,
  };
}

export const accountCommands: Record<string, Command> = {
  'accounts show': {
    usage: 'accounts show --account ACCOUNT_ID|EMAIL',
    options: ACCOUNT,
    prepare(values) {
      const idOrEmail = required(values, 'account');
      return (stores) => show(stores, idOrEmail);
    },
  },
  'accounts lock': {
    usage: 'accounts lock --account ACCOUNT_ID|EMAIL --reason TEXT',
    options: { ...ACCOUNT, reason: { type: 'string' } },
    prepare(values) {
      const idOrEmail = required(values, 'account');
      const reason = required(values, 'reason');
      return async ({ store }) => {
        const { id } = await accounts.findAccount(store, idOrEmail);
        // Locking a locked account reports the first lock, which the store keeps.
        return { account_id: id, ...lockView(await accounts.lockAccount(store, id, reason)) };
      };
    },
  },
  'accounts unlock': {
    usage: 'accounts unlock --account ACCOUNT_ID|EMAIL',
    options: ACCOUNT,
    prepare(values) {
      const idOrEmail = required(values, 'account');
      return async ({ store }) => {
        const { id } = await accounts.findAccount(store, idOrEmail);
        return { account_id: id, ...lockView(await accounts.unlockAccount(store, id)) };
      };
    },
  },
  // Signs the person out everywhere (a stolen session, a lock); API keys are untouched: `keys revoke` does those.
  'accounts sessions revoke': {
    usage: 'accounts sessions revoke --account ACCOUNT_ID|EMAIL',
    options: ACCOUNT,
    prepare(values) {
      const idOrEmail = required(values, 'account');
      return async ({ store, credentials }) => {
        const { id } = await accounts.findAccount(store, idOrEmail);
        return { account_id: id, sessions_revoked: await credentials.revokeAccountSessions(id, Date.now()) };
      };
    },
  },
};
