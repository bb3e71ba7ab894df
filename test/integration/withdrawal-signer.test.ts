/**
 * The signer's own checks (issue 27 items 4 and 7; docs/payments.md "Withdrawals"): it signs only what the database
 * and the ledger agree on, whatever a tampered row says, and it never lets a withdrawal hold two transactions. Run in
 * this process against a gateway with withdrawals on and a fake java-tron node over HTTP, as `npm run signer` does.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { JavaTronHttpChain } from '../../src/adapters/tron-chain/java-tron-http.js';
import type { SignedTransaction, WithdrawalStore } from '../../src/adapters/withdrawal-store/index.js';
import { SqlWithdrawalStore } from '../../src/adapters/withdrawal-store/sql.js';
import { withdrawalHoldId } from '../../src/domain/payments/withdrawals-context.js';
import { newId } from '../../src/lib/ids.js';
import { addressFromPrivateKey } from '../../src/lib/tron/key-address.js';
import { type SignerDeps, signApprovedWithdrawals } from '../../src/signer/withdrawal-signer.js';
import { OUTSIDE, startWithdrawalsHarness, USDT, type WithdrawalsHarness } from '../setup/withdrawals.js';

const USD = 1_000_000n;
const FEE = 1n * USD;
const YEAR_MS = 365 * 24 * 3_600_000;
const NO_CAPS = { accountTotalMicros: 10n ** 15n, accountDailyMicros: 10n ** 15n, globalDailyMicros: 10n ** 15n };

let h: WithdrawalsHarness;
let store: SqlWithdrawalStore;
/** Every transaction the node was handed, as hex, whoever sent it. */
const broadcasts: string[] = [];

beforeAll(async () => {
  h = await startWithdrawalsHarness({ EARNINGS_HOLD_DAYS: '0', WITHDRAW_ADDRESS_COOLING_HOURS: '0' });
  store = new SqlWithdrawalStore(h.deps.db);
  const broadcast = h.node.chain.broadcast.bind(h.node.chain);
  h.node.chain.broadcast = (hex) => (broadcasts.push(hex.toLowerCase()), broadcast(hex));
});
afterAll(() => h.close());
// A refused withdrawal stays approved (an operator would reject it), and one signed here is never sent: both are
// put out of the way, so each test's signer and pipeline passes see its own withdrawals alone.
afterEach(async () => {
  for (const w of await store.inStatus(['approved', 'signed'], 100))
    await store.transition(w.id, [w.status], { status: 'rejected', finishedAtMs: h.deps.now() }, h.deps.now());
});

type Outcome = Parameters<SignerDeps['log']>[0];

/** The signer as `npm run signer` builds it, with what it logged; `overrides` change one of its settings. */
function signer(overrides: Partial<SignerDeps> = {}) {
  const events: Outcome[] = [];
  const deps: SignerDeps = {
    withdrawals: store,
    ledger: h.deps.ledger,
    chain: new JavaTronHttpChain({ nodeUrl: h.node.url }),
    contract: USDT,
    privateKey: h.hotKey,
    feeLimitSun: 100_000_000n,
    lifetimeMs: 60_000,
    maxMicros: 10_000n * USD,
    now: h.deps.now,
    log: (event) => void events.push(event),
    ...overrides,
  };
  return { events, run: () => signApprovedWithdrawals(deps) };
}

/**
 * An approved withdrawal written straight into the store, as a tampered database would hold it: its account has
 * $100, and `holdMicros` (default amount + fee) is held as its ledger hold, or nothing when null.
 */
async function approvedRow(address: string, amountMicros: bigint, holdMicros: bigint | null = amountMicros + FEE) {
  const { accountId } = await h.newAccount(undefined, { balanceUsd: 100 });
  const id = newId('wd');
  const nowMs = h.deps.now();
  const created = await store.create(
    { id, accountId, address, amountMicros, feeMicros: FEE, createdAtMs: nowMs },
    { ...NO_CAPS, dayStartMs: 0 },
  );
  expect(created.ok).toBe(true);
  if (holdMicros !== null) {
    const held = await h.deps.ledger.hold({
      id: withdrawalHoldId(id),
      accountId,
      amountMicros: holdMicros,
      nowMs,
      ttlMs: YEAR_MS,
    });
    expect(held.ok).toBe(true);
  }
  await store.transition(id, ['requested'], { status: 'approved', approvedBy: 'auto' }, nowMs);
  return { id, accountId };
}

async function expectRefused(s: ReturnType<typeof signer>, id: string, why: RegExp) {
  expect(await s.run()).toBe(0);
  expect(s.events).toEqual([{ withdrawalId: id, outcome: 'refused', why: expect.stringMatching(why) }]);
  expect(await store.get(id)).toMatchObject({ status: 'approved', signed: null });
}

describe('the signer refuses, and leaves the withdrawal approved for an operator', () => {
  it('when its ledger hold is missing', async () => {
    const { id } = await approvedRow(OUTSIDE, 20n * USD, null);
    await expectRefused(signer(), id, /ledger hold/);
  });

  it('when its ledger hold was released', async () => {
    const { id } = await approvedRow(OUTSIDE, 20n * USD);
    expect((await h.deps.ledger.release({ holdId: withdrawalHoldId(id), nowMs: h.deps.now() })).ok).toBe(true);
    await expectRefused(signer(), id, /ledger hold/);
  });

  it('when its ledger hold is of another amount than amount + fee', async () => {
    const { id } = await approvedRow(OUTSIDE, 20n * USD, 11n * USD);
    await expectRefused(signer(), id, /ledger hold/);
  });

  it('when its amount was raised in the database after its hold was placed', async () => {
    const { id } = await approvedRow(OUTSIDE, 20n * USD);
    await h.deps.db
      .knex('withdrawals')
      .where('id', id)
      .update({ amount_micros: String(90n * USD) });
    await expectRefused(signer(), id, /ledger hold/);
  });

  it.each([
    ['the USDT contract', () => USDT],
    ['the hot wallet', () => h.hotWallet],
  ])('when the destination is %s', async (_name, destination) => {
    const { id } = await approvedRow(destination(), 20n * USD);
    await expectRefused(signer(), id, /destination/);
  });

  it('when the amount is above its own maximum, whatever the database says', async () => {
    const { id } = await approvedRow(OUTSIDE, 20n * USD);
    await expectRefused(signer({ maxMicros: 19_999_999n }), id, /amount .* outside/);
    expect(await signer({ maxMicros: 20n * USD }).run()).toBe(1); // at its maximum it signs
  });

  it('when the hot wallet holds less USDT than the amount', async () => {
    const poorKey = secp256k1.utils.randomSecretKey();
    h.node.chain.mint(addressFromPrivateKey(poorKey), 20n * USD - 1n);
    const { id } = await approvedRow(OUTSIDE, 20n * USD);
    await expectRefused(signer({ privateKey: poorKey }), id, /hot wallet holds 19999999/);
  });
});

/** The store with `recordSignature` held back until `racers` calls reached it: every pass signs before any stores. */
function racingStore(racers: number) {
  const offered: SignedTransaction[] = [];
  let arrive!: () => void;
  const allArrived = new Promise<void>((resolve) => (arrive = resolve));
  const recordSignature: WithdrawalStore['recordSignature'] = async (id, signed, atMs) => {
    offered.push(signed);
    if (offered.length === racers) arrive();
    await allArrived;
    return store.recordSignature(id, signed, atMs);
  };
  // Everything else is the store's own (its methods found through the prototype, its connection too).
  const racing: WithdrawalStore = Object.assign(Object.create(store) as SqlWithdrawalStore, { recordSignature });
  return { racing, offered };
}

describe('a withdrawal holds one transaction, ever', () => {
  it('two signer passes racing store one signature, and the node only ever sees that one', async () => {
    const { id } = await approvedRow(OUTSIDE, 20n * USD);
    const { racing, offered } = racingStore(2);
    // Two signers set differently (their transactions' lifetimes) sign different bytes for the one withdrawal.
    const a = signer({ withdrawals: racing });
    const b = signer({ withdrawals: racing, lifetimeMs: 90_000 });
    const signed = await Promise.all([a.run(), b.run()]);
    expect(signed[0] + signed[1]).toBe(1);
    expect([...a.events, ...b.events].map((e) => e.outcome).sort()).toEqual(['lost_race', 'signed']);
    expect(new Set(offered.map((o) => o.txid)).size).toBe(2);
    const stored = (await store.get(id))!.signed!;
    const lost = offered.find((o) => o.txid !== stored.txid)!;
    expect(offered.map((o) => o.txid)).toContain(stored.txid);

    const seenBefore = broadcasts.length;
    await h.advanceWithdrawals();
    await h.advanceWithdrawals(); // a rebroadcast: the same bytes
    h.mine();
    await h.advanceWithdrawals();
    expect(await store.get(id)).toMatchObject({ status: 'completed', signed: stored });
    expect(broadcasts.slice(seenBefore)).toEqual([stored.hex, stored.hex]);
    expect(broadcasts).not.toContain(lost.hex);
    expect(h.node.chain.info(lost.txid, false)).toBeNull();
  });

  it('two withdrawals of one amount to one address, signed in one pass, are two transactions', async () => {
    const first = await approvedRow(OUTSIDE, 15n * USD);
    const second = await approvedRow(OUTSIDE, 15n * USD);
    const outsideBefore = await h.node.chain.trc20Balance(OUTSIDE, USDT, { solid: true });
    expect(await signer().run()).toBe(2);
    const [a, b] = [(await store.get(first.id))!.signed!, (await store.get(second.id))!.signed!];
    expect(a.txid).not.toBe(b.txid);
    await h.advanceWithdrawals();
    h.mine();
    await h.advanceWithdrawals();
    expect((await store.get(first.id))?.status).toBe('completed');
    expect((await store.get(second.id))?.status).toBe('completed');
    expect(await h.node.chain.trc20Balance(OUTSIDE, USDT, { solid: true })).toBe(outsideBefore + 30n * USD);
  });

  it('a transaction reverted in a solidified block gives the hold back and fails the withdrawal', async () => {
    const { id, accountId } = await approvedRow(OUTSIDE, 20n * USD);
    expect(await signer().run()).toBe(1);
    // The hot wallet is emptied by a transfer that lands first in the same block: the USDT transfer then reverts.
    const float = await h.node.chain.trc20Balance(h.hotWallet, USDT, { solid: false });
    h.node.chain.addTransfers([{ contract: USDT, from: h.hotWallet, to: OUTSIDE, amount: float }]);
    await h.advanceWithdrawals();
    h.mine();
    await h.advanceWithdrawals();
    h.node.chain.mint(h.hotWallet, float);
    const failed = await store.get(id);
    expect(failed).toMatchObject({ status: 'failed', failureReason: expect.stringContaining('REVERT') });
    expect(h.node.chain.info(failed!.signed!.txid, true)).toMatchObject({ failed: true, receiptResult: 'REVERT' });
    expect(await h.deps.ledger.getHold(withdrawalHoldId(id))).toMatchObject({ status: 'voided' });
    expect(await h.deps.ledger.getBalance(accountId)).toMatchObject({ availableMicros: 100n * USD, heldMicros: 0n });
    await h.advanceWithdrawals(); // a later pass changes nothing
    expect(await store.get(id)).toEqual(failed);
  });
});
