/**
 * Issue 27 item 4, end to end in one process: a provider's matured earnings leave in USDT-TRC20 through the
 * request, the signer's one signature, the broadcast of those bytes, and a solidified block; the ledger holds,
 * then posts or gives back, exactly amount + fee.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcileWithdrawals } from '../../src/domain/payments/withdrawal-reconcile.js';
import { withdrawalHoldId } from '../../src/domain/payments/withdrawals-context.js';
import { newId } from '../../src/lib/ids.js';
import { expectNativeOk } from '../setup/envelopes.js';
import {
  type Earner,
  earner,
  OUTSIDE,
  startWithdrawalsHarness,
  USDT,
  type WithdrawalsHarness,
} from '../setup/withdrawals.js';

let h: WithdrawalsHarness;
beforeAll(async () => {
  h = await startWithdrawalsHarness({ EARNINGS_HOLD_DAYS: '0', WITHDRAW_ADDRESS_COOLING_HOURS: '0' });
});
afterAll(() => h.close());

const account = async (p: Earner) => expectNativeOk(await h.request('GET', '/v1/account', { key: p.apiKey }));
const one = async (p: Earner, id: string) =>
  expectNativeOk(await h.request('GET', `/v1/payments/withdrawals/${id}`, { key: p.apiKey }));

async function withdraw(p: Earner, amountUsd: number) {
  const entry = expectNativeOk(
    await h.request('POST', '/v1/payments/withdrawal-addresses', {
      key: p.access_token,
      body: { address: OUTSIDE, totp: p.code() },
    }),
    201,
  );
  h.advance(1_000);
  const body = { address_id: entry.address_id, amount_usd: amountUsd, totp: p.code() };
  return expectNativeOk(await h.request('POST', '/v1/payments/withdrawals', { key: p.apiKey, body }), 201);
}

describe('a withdrawal of earnings', () => {
  it('is held, signed once, broadcast, and completed on a solidified block: amount + fee leave the balance', async () => {
    const provider = await earner(h, 100); // $85 earned
    const before = await account(provider);
    const outsideBefore = await h.node.chain.trc20Balance(OUTSIDE, USDT, { solid: true });
    const requested = await withdraw(provider, 50);
    expect(requested).toMatchObject({ status: 'approved', amount_usd: 50, fee_usd: 1, tx_id: null });
    expect(await account(provider)).toMatchObject({ balance_usd: before.balance_usd, held_usd: 51 });

    expect(await h.sign()).toBe(1);
    expect(await h.sign()).toBe(0); // never signed twice
    const signed = await one(provider, requested.withdrawal_id);
    expect(signed).toMatchObject({ status: 'signed', tx_id: expect.stringMatching(/^[0-9a-f]{64}$/) });

    await h.advanceWithdrawals();
    expect((await one(provider, requested.withdrawal_id)).status).toBe('broadcast');
    await h.advanceWithdrawals(); // a rebroadcast of the same bytes is a duplicate, nothing more
    h.mine();
    await h.advanceWithdrawals();
    const done = await one(provider, requested.withdrawal_id);
    expect(done).toMatchObject({ status: 'completed', tx_id: signed.tx_id, finished_at: expect.any(String) });
    expect(await h.node.chain.trc20Balance(OUTSIDE, USDT, { solid: true })).toBe(outsideBefore + 50_000_000n);
    const after = await account(provider);
    expect(after.held_usd).toBe(0);
    expect(after.balance_usd).toBeCloseTo(before.balance_usd - 51, 6);
    const { differences } = await reconcileWithdrawals(h.deps.withdrawals, h.node.chain);
    expect(differences.filter((d) => d.withdrawal_id === requested.withdrawal_id)).toEqual([]);
  });

  it('gives amount + fee back when the transaction never reaches a block before it expires', async () => {
    const provider = await earner(h, 100);
    const before = await account(provider);
    const requested = await withdraw(provider, 20);
    await h.sign();
    const { tx_id: txid } = await one(provider, requested.withdrawal_id);
    await h.advanceWithdrawals();
    expect(h.node.chain.dropPending(txid)).toBe(true); // the node lost it: no block will ever hold it
    h.node.chain.mineBlocks(60); // three minutes of chain time, past its expiration and the margin
    h.node.chain.solidify();
    await h.advanceWithdrawals();
    expect(await one(provider, requested.withdrawal_id)).toMatchObject({
      status: 'failed',
      failure_reason: expect.stringContaining('expired'),
    });
    expect(await account(provider)).toMatchObject({ balance_usd: before.balance_usd, held_usd: 0 });
  });

  it('left `requested` by a process that died after admitting it, is held once and goes on', async () => {
    const provider = await earner(h, 100);
    const store = h.deps.withdrawals.withdrawals;
    const nowMs = h.deps.now();
    const caps = { accountTotalMicros: 10n ** 12n, accountDailyMicros: 10n ** 12n, globalDailyMicros: 10n ** 12n };
    const admitted = async (heldAlready: boolean) => {
      const withdrawal = { id: newId('wd'), accountId: provider.accountId, address: OUTSIDE, createdAtMs: nowMs };
      const created = await store.create(
        { ...withdrawal, amountMicros: 10_000_000n, feeMicros: 1_000_000n },
        {
          ...caps,
          dayStartMs: nowMs - 1,
        },
      );
      if (!created.ok) throw new Error('not admitted');
      if (heldAlready) {
        const hold = { id: withdrawalHoldId(withdrawal.id), accountId: provider.accountId, amountMicros: 11_000_000n };
        expect((await h.deps.ledger.hold({ ...hold, nowMs, ttlMs: 86_400_000 })).ok).toBe(true);
      }
      return withdrawal.id;
    };
    const [bare, held] = [await admitted(false), await admitted(true)];
    await h.advanceWithdrawals();
    expect((await one(provider, bare)).status).toBe('requested'); // the request may still be running: left alone
    h.advance(60_000);
    await h.advanceWithdrawals();
    await h.advanceWithdrawals();
    for (const id of [bare, held]) expect((await one(provider, id)).status).toBe('approved');
    expect((await account(provider)).held_usd).toBe(22);
  });
});
