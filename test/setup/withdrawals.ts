/**
 * A gateway with withdrawals on (issue 27 item 4): the accounts harness (sessions, mail, a clock to move), a fake
 * java-tron node whose hot wallet holds USDT, the signer's step run in this process with the hot wallet's key, and
 * a provider who earned real money from a renter's rental, with the second factor every withdrawal and every address
 * added needs. Tests drive the pipeline and the chain by hand.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { SqlWithdrawalStore } from '../../src/adapters/withdrawal-store/sql.js';
import { advanceWithdrawals } from '../../src/domain/payments/withdrawal-pipeline.js';
import { addressFromPrivateKey } from '../../src/lib/tron/key-address.js';
import { signApprovedWithdrawals } from '../../src/signer/withdrawal-signer.js';
import { type FakeJavaTron, startFakeJavaTron } from '../fakes/java-tron.js';
import {
  type AccountsHarness,
  type SignedUpSession,
  signedUpSession,
  startAccountsHarness,
  totpCode,
  withTotp,
} from './accounts.js';
import { expectNativeOk } from './envelopes.js';
import { heartbeat, MACHINE, type Provider, runningRental } from './market.js';

export const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
/** A destination outside the service: the Trezor test vector's address. */
export const OUTSIDE = 'TY72iA3SBtrds3QLYsS7LwYfkzXwAXCRWT';
const HOUR = 3_600_000;

export interface WithdrawalsHarness extends AccountsHarness {
  node: FakeJavaTron;
  hotWallet: string;
  hotKey: Uint8Array;
  /** One pass of the signer over approved withdrawals; how many it signed. */
  sign(): Promise<number>;
  /** One pass of the gateway's withdrawal pipeline. */
  advanceWithdrawals(): Promise<void>;
  /** Puts what the node holds into a block and solidifies it. */
  mine(): void;
}

export async function startWithdrawalsHarness(env: Record<string, string> = {}): Promise<WithdrawalsHarness> {
  const node = await startFakeJavaTron({ token: USDT, firstBlockNumber: 70_000_000, firstBlockTimeMs: Date.now() });
  const hotKey = secp256k1.utils.randomSecretKey();
  const hotWallet = addressFromPrivateKey(hotKey);
  node.chain.mint(hotWallet, 1_000_000_000_000n);
  const h = await startAccountsHarness({
    TRON_NODE_URL: node.url,
    TRON_HOT_WALLET_ADDRESS: hotWallet,
    TRON_USDT_CONTRACT: USDT,
    WITHDRAW_POLL_MS: String(HOUR),
    MACHINE_OFFLINE_MS: String(365 * 24 * HOUR),
    ...env,
  });
  const signerDeps = {
    withdrawals: new SqlWithdrawalStore(h.deps.db),
    ledger: h.deps.ledger,
    chain: node.chain,
    contract: USDT,
    privateKey: hotKey,
    feeLimitSun: 100_000_000n,
    lifetimeMs: 60_000,
    maxMicros: 1_000_000_000_000n,
    now: h.deps.now,
    log: () => {},
  };
  const closeHarness = h.close.bind(h);
  return Object.assign(h, {
    node,
    hotWallet,
    hotKey,
    sign: () => signApprovedWithdrawals(signerDeps),
    advanceWithdrawals: () =>
      advanceWithdrawals(h.deps.withdrawals, (err) => {
        throw err;
      }),
    mine() {
      node.chain.mineBlock();
      node.chain.solidify();
    },
    async close() {
      await closeHarness();
      await node.close();
    },
  });
}

/**
 * A signed-up person with an API key (`agent`) and the second factor turned on, as adding a withdrawal address and
 * withdrawing need (DESIGN.md 10).
 */
export interface Earner extends SignedUpSession {
  apiKey: string;
  accountId: string;
  totpSecret: string;
  recoveryCodes: string[];
  /** The authenticator's code for a step no earlier code used: the service's clock moves 30 s (accounts.ts). */
  code(): string;
}

/** Signs up and in, makes an API key and turns the second factor on; nothing earned yet. */
export async function personWithFactor(h: AccountsHarness): Promise<Earner> {
  const session = await signedUpSession(h);
  const key = expectNativeOk(
    await h.request('POST', '/v1/llm/api-keys', { key: session.access_token, body: { name: 'agent' } }),
    201,
  );
  const account = expectNativeOk(await h.request('GET', '/v1/account', { key: key.api_key }));
  const { secret, recoveryCodes } = await withTotp(h, session.access_token);
  return {
    ...session,
    apiKey: key.api_key,
    accountId: account.account_id,
    totpSecret: secret,
    recoveryCodes,
    code: () => totpCode(h, secret),
  };
}

/**
 * A person with a second factor (personWithFactor) who registered a machine and earned from a renter's rental:
 * `chargedUsd` at 85 % (the platform keeps 15 %), the rental running 10 minutes at six times that an hour.
 */
export async function earner(h: WithdrawalsHarness, chargedUsd: number): Promise<Earner> {
  const person = await personWithFactor(h);
  const machine = expectNativeOk(
    await h.request('POST', '/v1/provider/machines', {
      key: person.apiKey,
      body: { ...MACHINE, gpu_count: 1, price_per_gpu_hour_usd: chargedUsd * 6 },
    }),
    201,
  );
  const provider: Provider = { apiKey: person.apiKey, accountId: person.accountId, machineId: machine.machine_id };
  const renter = await h.newAccount(undefined, { balanceUsd: chargedUsd * 7 }); // an hour is reserved up front
  const rental = await runningRental(h, renter.apiKey, provider, { pricing_type: 'hour' });
  h.advance(10 * 60_000);
  await heartbeat(h, provider, [{ instance_id: rental.task_id, state: 'running' }]);
  expectNativeOk(await h.request('DELETE', `/v1/instances/${rental.task_id}`, { key: renter.apiKey }));
  return person;
}

const DAY = 24 * HOUR;

/** A valid TRON address of a fresh key: outside the service and in no address book yet. */
export const freshTronAddress = (): string => addressFromPrivateKey(secp256k1.utils.randomSecretKey());

/**
 * POST /v1/payments/withdrawal-addresses as `token` (a session's access token; an API key is refused). The body
 * carries the second factor's code in `totp`, as the account needs one.
 */
export const addAddress = (h: AccountsHarness, token: string, body: Record<string, unknown>) =>
  h.request('POST', '/v1/payments/withdrawal-addresses', { key: token, body });

/** POST /v1/payments/withdrawals as `key`, with an Idempotency-Key when one is given; `totp` goes in the body. */
export const requestWithdrawal = (h: AccountsHarness, key: string, body: unknown, idempotencyKey?: string) =>
  h.request('POST', '/v1/payments/withdrawals', {
    key,
    body,
    headers: idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey },
  });

/**
 * Moves the service's clock to 01:00 UTC of the first day at least `days` days on: what was earned before is past
 * the default hold period (EARNINGS_HOLD_DAYS=7), what was added to a book before past the default cooling, and no
 * withdrawal has counted yet towards that day's limits.
 */
export function advanceToFreshDay(h: AccountsHarness, days = 7): void {
  const now = h.deps.now();
  const target = Math.floor((now + days * DAY) / DAY) * DAY + DAY + HOUR;
  h.advance(target - now);
}

/**
 * An earner (`chargedUsd` at 85 %) with OUTSIDE in their book, on a fresh UTC day past the default hold period and
 * cooling: ready to withdraw with `apiKey` to `addressId`. Their session's access token has expired by then.
 */
export async function readyEarner(h: WithdrawalsHarness, chargedUsd: number): Promise<Earner & { addressId: string }> {
  const provider = await earner(h, chargedUsd);
  const body = { address: OUTSIDE, totp: provider.code() };
  const entry = expectNativeOk(await addAddress(h, provider.access_token, body), 201);
  advanceToFreshDay(h);
  return { ...provider, addressId: entry.address_id };
}
