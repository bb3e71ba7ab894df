/**
 * GET /v1/payments/withdrawals/{withdrawal_id} (issue 27 item 4): one of the account's withdrawals as it is now;
 * `tx_id` once the signer has signed it. No hold period or cooling here: the earner withdraws at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import {
  addAddress,
  type Earner,
  earner,
  OUTSIDE,
  requestWithdrawal,
  startWithdrawalsHarness,
  type WithdrawalsHarness,
} from '../setup/withdrawals.js';

let h: WithdrawalsHarness;
beforeAll(async () => {
  h = await startWithdrawalsHarness({ EARNINGS_HOLD_DAYS: '0', WITHDRAW_ADDRESS_COOLING_HOURS: '0' });
});
afterAll(() => h.close());

const get = (key: string, id: string) => h.request('GET', `/v1/payments/withdrawals/${id}`, { key });

/** A $20 withdrawal of a new earner's, approved. */
async function withdrawn(p: Earner) {
  const entry = expectNativeOk(await addAddress(h, p.access_token, { address: OUTSIDE, totp: p.code() }), 201);
  const body = { address_id: entry.address_id, amount_usd: 20, totp: p.code() };
  return expectNativeOk(await requestWithdrawal(h, p.apiKey, body), 201);
}

describe('GET /v1/payments/withdrawals/{withdrawal_id}', { timeout: 30_000 }, () => {
  it('200: the withdrawal as requested, with a session as with a key; then signed, with its tx_id', async () => {
    const p = await earner(h, 100);
    const requested = await withdrawn(p);
    expect(expectNativeOk(await get(p.apiKey, requested.withdrawal_id))).toEqual(requested);
    expect(expectNativeOk(await get(p.access_token, requested.withdrawal_id))).toEqual(requested);
    await h.sign();
    const signed = expectNativeOk(await get(p.apiKey, requested.withdrawal_id));
    expect(signed).toEqual({ ...requested, status: 'signed', tx_id: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it('404 withdrawal_not_found: another account’s withdrawal, or none', async () => {
    const p = await earner(h, 100);
    const requested = await withdrawn(p);
    const stranger = await h.newAccount();
    expectNativeError(await get(stranger.apiKey, requested.withdrawal_id), 404, 'withdrawal_not_found');
    expectNativeError(await get(p.apiKey, 'wd_none'), 404, 'withdrawal_not_found');
    expect(expectNativeOk(await get(p.apiKey, requested.withdrawal_id)).status).toBe('approved');
  });

  it('400 invalid_request for an id of another shape; 401 without credentials', async () => {
    const { apiKey } = await h.newAccount();
    expectNativeError(await get(apiKey, 'dep_123'), 400, 'invalid_request');
    expectNativeError(await h.request('GET', '/v1/payments/withdrawals/wd_none'), 401, 'authentication_required');
  });
});
