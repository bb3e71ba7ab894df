/**
 * GET /v1/payments/withdrawals (issue 27 item 4; docs/payments.md "Withdrawals"): the account's withdrawals newest
 * first, with what can leave now (`withdrawable_usd`: matured earnings less what is withdrawn, at most the balance)
 * and the earnings still in their hold period (`maturing_usd`). Default hold: 7 days.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedUpSession } from '../setup/accounts.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { micros } from '../setup/money.js';
import {
  addAddress,
  advanceToFreshDay,
  type Earner,
  earner,
  OUTSIDE,
  readyEarner,
  requestWithdrawal,
  startWithdrawalsHarness,
  type WithdrawalsHarness,
} from '../setup/withdrawals.js';

let h: WithdrawalsHarness;
beforeAll(async () => {
  h = await startWithdrawalsHarness();
});
afterAll(() => h.close());

const list = async (key: string, query = '') =>
  expectNativeOk(await h.request('GET', `/v1/payments/withdrawals${query}`, { key }));
/** What the earner has: all of it earned, nothing else came in. */
const balanceMicros = async (key: string) =>
  micros(expectNativeOk(await h.request('GET', '/v1/account', { key })).balance_usd);
const ids = (page: { withdrawals: { withdrawal_id: string }[] }) => page.withdrawals.map((w) => w.withdrawal_id);
const withdraw = async (p: Earner, address_id: string, amount_usd: number) =>
  expectNativeOk(await requestWithdrawal(h, p.apiKey, { address_id, amount_usd, totp: p.code() }), 201);

describe('GET /v1/payments/withdrawals', { timeout: 30_000 }, () => {
  it('200: earnings maturing, then withdrawable; withdrawals newest first, paged; spending leaves less', async () => {
    const p = await earner(h, 100); // $85 and the rental's odd milliseconds
    const earned = await balanceMicros(p.apiKey);
    const fresh = await list(p.apiKey);
    expect(fresh.withdrawals).toEqual([]);
    expect([micros(fresh.withdrawable_usd), micros(fresh.maturing_usd)]).toEqual([0n, earned]);
    const entry = expectNativeOk(await addAddress(h, p.access_token, { address: OUTSIDE, totp: p.code() }), 201);
    advanceToFreshDay(h);
    const matured = await list(p.apiKey);
    expect([micros(matured.withdrawable_usd), micros(matured.maturing_usd)]).toEqual([earned, 0n]);

    const older = await withdraw(p, entry.address_id, 20);
    h.advance(1_000);
    const newer = await withdraw(p, entry.address_id, 30);
    const page = await list(p.apiKey);
    expect(page.withdrawals).toEqual([newer, older]);
    expect(micros(page.withdrawable_usd)).toBe(earned - micros(52)); // both amounts and their $1 fees
    expect(ids(await list(p.apiKey, '?limit=1'))).toEqual([newer.withdrawal_id]);
    expect(ids(await list(p.apiKey, '?limit=1&offset=1'))).toEqual([older.withdrawal_id]);
    expect(ids(await list(p.apiKey, '?offset=2'))).toEqual([]);

    await h.spend(p.apiKey, 13); // one pot: earnings spent are not withdrawn
    const spent = await list(p.apiKey);
    expect([micros(spent.withdrawable_usd), micros(spent.maturing_usd)]).toEqual([earned - micros(65), 0n]);
  });

  it('200: a failed withdrawal stays listed with its reason and gives its amount + fee back', async () => {
    const p = await readyEarner(h, 100);
    const earned = await balanceMicros(p.apiKey);
    const requested = await withdraw(p, p.addressId, 20);
    expect(micros((await list(p.apiKey)).withdrawable_usd)).toBe(earned - micros(21));
    await h.sign();
    const { tx_id: txid } = expectNativeOk(
      await h.request('GET', `/v1/payments/withdrawals/${requested.withdrawal_id}`, { key: p.apiKey }),
    );
    await h.advanceWithdrawals();
    expect(h.node.chain.dropPending(txid)).toBe(true); // lost by the node: no block will hold it
    h.node.chain.mineBlocks(60); // past its expiration and the margin
    h.node.chain.solidify();
    await h.advanceWithdrawals();
    const after = await list(p.apiKey);
    expect(after.withdrawals).toMatchObject([
      { withdrawal_id: requested.withdrawal_id, status: 'failed', failure_reason: expect.any(String) },
    ]);
    expect(after.withdrawals[0].finished_at).toEqual(expect.any(String));
    expect(micros(after.withdrawable_usd)).toBe(earned);
  });

  it('200: money from a top-up is neither withdrawable nor maturing; no other account’s withdrawals', async () => {
    await readyEarner(h, 50).then((p) => withdraw(p, p.addressId, 10));
    const person = await signedUpSession(h);
    const { account_id } = expectNativeOk(await h.request('GET', '/v1/account', { key: person.access_token }));
    await h.topUp(account_id, 100);
    expect(await list(person.access_token)).toEqual({ withdrawals: [], withdrawable_usd: 0, maturing_usd: 0 });
  });

  it('401 without credentials; 400 invalid_request for a page size out of bounds', async () => {
    expectNativeError(await h.request('GET', '/v1/payments/withdrawals'), 401, 'authentication_required');
    const { apiKey } = await h.newAccount();
    const response = await h.request('GET', '/v1/payments/withdrawals?limit=0', { key: apiKey });
    expectNativeError(response, 400, 'invalid_request');
  });
});
