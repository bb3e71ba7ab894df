/**
 * GET /v1/payments/withdrawal-addresses (issue 27 item 4): the account's withdrawal address book, oldest first, each
 * with when a withdrawal may go to it; readable with an API key as with a session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import {
  addAddress,
  freshTronAddress,
  OUTSIDE,
  personWithFactor,
  startWithdrawalsHarness,
  type WithdrawalsHarness,
} from '../setup/withdrawals.js';

const HOUR = 3_600_000;

let h: WithdrawalsHarness;
beforeAll(async () => {
  h = await startWithdrawalsHarness({ WITHDRAW_ADDRESS_COOLING_HOURS: '6' });
});
afterAll(() => h.close());

const list = (key: string) => h.request('GET', '/v1/payments/withdrawal-addresses', { key });

describe('GET /v1/payments/withdrawal-addresses', { timeout: 30_000 }, () => {
  it('200: the book oldest first, each usable WITHDRAW_ADDRESS_COOLING_HOURS after it was added', async () => {
    const person = await personWithFactor(h);
    const add = (body: Record<string, unknown>) => addAddress(h, person.access_token, { ...body, totp: person.code() });
    const first = expectNativeOk(await add({ address: OUTSIDE, label: 'cold' }), 201);
    h.advance(60_000);
    const second = expectNativeOk(await add({ address: freshTronAddress() }), 201);
    const { addresses } = expectNativeOk(await list(person.access_token));
    expect(addresses).toEqual([first, second]);
    expect(addresses.map((a: { label: string | null }) => a.label)).toEqual(['cold', null]);
    for (const entry of addresses) expect(Date.parse(entry.usable_from) - Date.parse(entry.created_at)).toBe(6 * HOUR);
    expect(Date.parse(second.created_at) - Date.parse(first.created_at)).toBeGreaterThanOrEqual(60_000);
  });

  it('200 with an API key of the account; never another account’s addresses', async () => {
    const person = await personWithFactor(h);
    const entry = expectNativeOk(
      await addAddress(h, person.access_token, { address: OUTSIDE, totp: person.code() }),
      201,
    );
    expect(expectNativeOk(await list(person.apiKey)).addresses).toEqual([entry]);
    const stranger = await h.newAccount();
    expect(expectNativeOk(await list(stranger.apiKey))).toEqual({ addresses: [] });
  });

  it('401 authentication_required without credentials', async () => {
    const response = await h.request('GET', '/v1/payments/withdrawal-addresses');
    expectNativeError(response, 401, 'authentication_required');
  });
});
