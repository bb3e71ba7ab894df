/**
 * DELETE /v1/payments/withdrawal-addresses/{address_id} (issue 27 item 4): a signed-in session takes an address out
 * of its book; withdrawals already requested to it go on, and adding it again starts its cooling again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anotherSession, signedUpSession } from '../setup/accounts.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import {
  addAddress,
  freshTronAddress,
  OUTSIDE,
  personWithFactor,
  readyEarner,
  requestWithdrawal,
  startWithdrawalsHarness,
  type WithdrawalsHarness,
} from '../setup/withdrawals.js';

const DAY = 24 * 3_600_000;

let h: WithdrawalsHarness;
beforeAll(async () => {
  h = await startWithdrawalsHarness();
});
afterAll(() => h.close());

const remove = (key: string, id: string) => h.request('DELETE', `/v1/payments/withdrawal-addresses/${id}`, { key });
const book = async (key: string) =>
  expectNativeOk(await h.request('GET', '/v1/payments/withdrawal-addresses', { key })).addresses as {
    address_id: string;
  }[];
const withdrawal = async (key: string, id: string) =>
  expectNativeOk(await h.request('GET', `/v1/payments/withdrawals/${id}`, { key }));

describe('DELETE /v1/payments/withdrawal-addresses/{address_id}', { timeout: 30_000 }, () => {
  it('200: out of the book; a withdrawal requested to it goes on; added again, it cools again', async () => {
    const p = await readyEarner(h, 100);
    const body = (address_id = p.addressId) => ({ address_id, amount_usd: 20, totp: p.code() });
    const requested = expectNativeOk(await requestWithdrawal(h, p.apiKey, body()), 201);
    const session = await anotherSession(h, p.email, { totp: p.code() });
    expect(expectNativeOk(await remove(session.access_token, p.addressId))).toEqual({ deleted: true });
    expect(await book(session.access_token)).toEqual([]);
    expectNativeError(await requestWithdrawal(h, p.apiKey, body()), 404, 'withdrawal_address_not_found');
    await h.sign();
    const signed = await withdrawal(p.apiKey, requested.withdrawal_id);
    expect(signed).toMatchObject({
      status: 'signed',
      address: OUTSIDE,
      tx_id: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const again = expectNativeOk(await addAddress(h, session.access_token, { address: OUTSIDE, totp: p.code() }), 201);
    expect(again.address_id).not.toBe(p.addressId);
    expect(Date.parse(again.usable_from) - Date.parse(again.created_at)).toBe(DAY);
    const cooling = await requestWithdrawal(h, p.apiKey, body(again.address_id));
    expectNativeError(cooling, 409, 'withdrawal_address_cooling');
  });

  it('404 withdrawal_address_not_found: another account’s entry, one removed already, or none', async () => {
    const owner = await personWithFactor(h);
    const added = await addAddress(h, owner.access_token, { address: freshTronAddress(), totp: owner.code() });
    const entry = expectNativeOk(added, 201);
    const stranger = await signedUpSession(h);
    expectNativeError(await remove(stranger.access_token, entry.address_id), 404, 'withdrawal_address_not_found');
    expect(await book(owner.access_token)).toEqual([entry]);
    expectNativeOk(await remove(owner.access_token, entry.address_id));
    expectNativeError(await remove(owner.access_token, entry.address_id), 404, 'withdrawal_address_not_found');
    expectNativeError(await remove(owner.access_token, 'wad_none'), 404, 'withdrawal_address_not_found');
  });

  it('403 session_required with an API key; 401 without credentials; 400 for an id of another shape', async () => {
    const owner = await personWithFactor(h);
    const entry = expectNativeOk(
      await addAddress(h, owner.access_token, { address: OUTSIDE, totp: owner.code() }),
      201,
    );
    expectNativeError(await remove(owner.apiKey, entry.address_id), 403, 'session_required');
    const anonymous = await h.request('DELETE', `/v1/payments/withdrawal-addresses/${entry.address_id}`);
    expectNativeError(anonymous, 401, 'authentication_required');
    expectNativeError(await remove(owner.access_token, 'not-an-id'), 400, 'invalid_request');
    expect(await book(owner.access_token)).toEqual([entry]);
  });
});
