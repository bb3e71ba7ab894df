/**
 * POST /v1/payments/withdrawals (issue 27 item 4; docs/payments.md "Withdrawals"): earnings past their hold period
 * leave to a cooled address of the account's own book, within the bounds and the daily limits; the amount and the
 * fee are held at once. Default hold (7 days) and cooling (24 h); the limits are small so one earner reaches them.
 * On PostgreSQL: an in-memory SQLite answers each query at once, so two racing requests never get to check the same
 * balance together; over real round trips they do, and only the store's one serialized step keeps one of them out.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeYooKassa } from '../fakes/yookassa.js';
import { anotherSession, PASSWORD } from '../setup/accounts.js';
import { HARNESS_DATABASES } from '../setup/databases.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, startHarness } from '../setup/harness.js';
import { expectIdempotencyContract } from '../setup/idempotency.js';
import { micros } from '../setup/money.js';
import {
  addAddress,
  advanceToFreshDay,
  earner,
  freshTronAddress,
  OUTSIDE,
  personWithFactor,
  readyEarner,
  requestWithdrawal,
  startWithdrawalsHarness,
  type WithdrawalsHarness,
} from '../setup/withdrawals.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let h: WithdrawalsHarness;
let yookassa: FakeYooKassa;
let dropDatabase: () => Promise<void>;
beforeAll(async () => {
  yookassa = await FakeYooKassa.start();
  const database = await HARNESS_DATABASES.find((d) => d.name === 'PostgreSQL')!.open();
  dropDatabase = database.drop;
  h = await startWithdrawalsHarness({
    ...database.env,
    WITHDRAW_APPROVAL_USD: '25',
    WITHDRAW_DAILY_ACCOUNT_USD: '60',
    WITHDRAW_DAILY_TOTAL_USD: '100',
    // A debt comes from a refund of a deposit (SBP here) whose money was already spent.
    YOOKASSA_SHOP_ID: yookassa.shopId,
    YOOKASSA_SECRET_KEY: yookassa.secretKey,
    YOOKASSA_API_URL: yookassa.apiBase,
    MARKET_FX_RATE_RUB: '80',
  });
  yookassa.outbox.webhookUrl = `${h.baseUrl}/v1/payments/webhooks/yookassa`;
});
afterAll(async () => {
  await h.close();
  await yookassa.close();
  await dropDatabase();
});

const withdraw = (key: string, body: unknown, idempotencyKey?: string) =>
  requestWithdrawal(h, key, body, idempotencyKey);
const account = async (key: string) => expectNativeOk(await h.request('GET', '/v1/account', { key }));
const withdrawals = async (key: string) =>
  expectNativeOk(await h.request('GET', '/v1/payments/withdrawals', { key })).withdrawals as {
    withdrawal_id: string;
  }[];

describe('POST /v1/payments/withdrawals', { timeout: 30_000 }, () => {
  it('201: approved up to WITHDRAW_APPROVAL_USD, pending_review above it; amount + fee held at once', async () => {
    const p = await readyEarner(h, 100); // $85 earned, matured
    const before = await account(p.apiKey);
    const approved = expectNativeOk(
      await withdraw(p.apiKey, { address_id: p.addressId, amount_usd: 25, totp: p.code() }),
      201,
    );
    expect(approved).toMatchObject({
      status: 'approved',
      address: OUTSIDE,
      amount_usd: 25,
      fee_usd: 1,
      tx_id: null,
      failure_reason: null,
      finished_at: null,
    });
    expect(approved.withdrawal_id).toMatch(/^wd_/);
    expect(await account(p.apiKey)).toMatchObject({ balance_usd: before.balance_usd, held_usd: 26 });
    const review = expectNativeOk(
      await withdraw(p.apiKey, { address_id: p.addressId, amount_usd: 30, totp: p.code() }),
      201,
    );
    expect(review).toMatchObject({ status: 'pending_review', amount_usd: 30, fee_usd: 1 });
    expect(await account(p.apiKey)).toMatchObject({ balance_usd: before.balance_usd, held_usd: 57 });
  });

  it('201 replayed for the same Idempotency-Key: one withdrawal, held once; 409 for another body', async () => {
    const p = await readyEarner(h, 100);
    const totp = p.code(); // a replay is answered from the first request: its code is not asked for again
    const first = await expectIdempotencyContract(
      (body, key) => withdraw(p.apiKey, body, key),
      {
        first: { address_id: p.addressId, amount_usd: 15, totp },
        other: { address_id: p.addressId, amount_usd: 16, totp },
      },
      'native',
      201,
    );
    expect((await withdrawals(p.apiKey)).map((w) => w.withdrawal_id)).toEqual([first.body.data.withdrawal_id]);
    expect((await account(p.apiKey)).held_usd).toBe(16);
  });

  it('two requests at once, each within the earnings alone but not together: one 201, one 402, one hold', async () => {
    const p = await readyEarner(h, 40); // $34 earned: one $20 withdrawal (+ $1 fee) fits, two do not
    const earned = micros((await account(p.apiKey)).balance_usd); // $34 and the rental's odd milliseconds
    // Two second factors that pass in either order: a code, and a recovery code.
    const bodies = [p.code(), p.recoveryCodes[0]].map((totp) => ({ address_id: p.addressId, amount_usd: 20, totp }));
    await Promise.all([account(p.apiKey), account(p.apiKey)]); // two connections open: both requests leave at once
    const answers = await Promise.all(bodies.map((body) => withdraw(p.apiKey, body, randomUUID())));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 402]);
    const refused = answers.find((a) => a.status === 402)!;
    expectNativeError(refused, 402, 'insufficient_withdrawable');
    expect(micros(refused.body.data.meta.withdrawable_usd)).toBe(earned - micros(21));
    expect(await withdrawals(p.apiKey)).toHaveLength(1);
    expect((await account(p.apiKey)).held_usd).toBe(21);
  });

  it('400 invalid_withdrawal: below WITHDRAW_MIN_USD or above WITHDRAW_MAX_USD, with the bounds in meta; code kept', async () => {
    const p = await readyEarner(h, 100);
    const totp = p.code();
    for (const amount_usd of [9.99, 10_000.01]) {
      const refused = await withdraw(p.apiKey, { address_id: p.addressId, amount_usd, totp });
      expectNativeError(refused, 400, 'invalid_withdrawal');
      expect(refused.body.data.meta).toMatchObject({ min_usd: 10, max_usd: 10_000 });
    }
    // Refused before the code was looked at: a code works once, and the mistake did not spend it.
    expectNativeOk(await withdraw(p.apiKey, { address_id: p.addressId, amount_usd: 10, totp }), 201);
  });

  it('402 insufficient_withdrawable: money from a top-up is never withdrawable', async () => {
    const person = await personWithFactor(h);
    await h.topUp(person.accountId, 100);
    const entry = expectNativeOk(
      await addAddress(h, person.access_token, { address: OUTSIDE, totp: person.code() }),
      201,
    );
    advanceToFreshDay(h);
    const session = await anotherSession(h, person.email, { totp: person.code() });
    const body = { address_id: entry.address_id, amount_usd: 10, totp: person.code() };
    const refused = await withdraw(session.access_token, body);
    expectNativeError(refused, 402, 'insufficient_withdrawable');
    expect(refused.body.data.meta.withdrawable_usd).toBe(0);
    expect((await account(session.access_token)).held_usd).toBe(0);
  });

  it('402 insufficient_withdrawable while earnings are in their hold period; 201 once it has passed', async () => {
    const p = await earner(h, 100);
    const entry = expectNativeOk(await addAddress(h, p.access_token, { address: OUTSIDE, totp: p.code() }), 201);
    h.advance(DAY + HOUR); // the address has cooled, the earnings are 1 of 7 days old
    const body = () => ({ address_id: entry.address_id, amount_usd: 10, totp: p.code() });
    const early = await withdraw(p.apiKey, body());
    expectNativeError(early, 402, 'insufficient_withdrawable');
    expect(early.body.data.meta.withdrawable_usd).toBe(0);
    h.advance(7 * DAY);
    expect(expectNativeOk(await withdraw(p.apiKey, body()), 201)).toMatchObject({ status: 'approved', amount_usd: 10 });
  });

  it('409 withdrawal_address_cooling with usable_from and Retry-After; the same request passes once cooled', async () => {
    const p = await readyEarner(h, 100);
    // The first session's access token has expired meanwhile.
    const session = await anotherSession(h, p.email, { totp: p.code() });
    const added = await addAddress(h, session.access_token, { address: freshTronAddress(), totp: p.code() });
    const entry = expectNativeOk(added, 201);
    expect(Date.parse(entry.usable_from) - Date.parse(entry.created_at)).toBe(DAY);
    const body = () => ({ address_id: entry.address_id, amount_usd: 10, totp: p.code() });
    const cooling = await withdraw(p.apiKey, body());
    expectNativeError(cooling, 409, 'withdrawal_address_cooling');
    expect(cooling.body.data.meta.usable_from).toBe(entry.usable_from);
    const retryAfterMs = Number(cooling.headers.get('retry-after')) * 1000;
    expect(Math.abs(retryAfterMs - (Date.parse(entry.usable_from) - h.deps.now()))).toBeLessThan(60_000);
    h.advance(DAY);
    const sent = expectNativeOk(await withdraw(p.apiKey, body()), 201);
    expect(sent).toMatchObject({ status: 'approved', address: entry.address });
  });

  it("404 withdrawal_address_not_found: an address of another account's book, or of none", async () => {
    const stranger = await personWithFactor(h);
    const theirs = expectNativeOk(
      await addAddress(h, stranger.access_token, { address: OUTSIDE, totp: stranger.code() }),
      201,
    );
    const person = await personWithFactor(h);
    for (const address_id of [theirs.address_id, 'wad_none']) {
      const refused = await withdraw(person.apiKey, { address_id, amount_usd: 10, totp: person.code() });
      expectNativeError(refused, 404, 'withdrawal_address_not_found');
    }
  });

  it('401 totp_required without the code, invalid_totp for a wrong or used one; a code or a recovery code passes', async () => {
    const p = await readyEarner(h, 100);
    const body = { address_id: p.addressId, amount_usd: 10 };
    expectNativeError(await withdraw(p.apiKey, body), 401, 'totp_required');
    expectNativeError(await withdraw(p.apiKey, { ...body, totp: 'aaaa-bbbb-cccc-dddd' }), 401, 'invalid_totp');
    expect((await account(p.apiKey)).held_usd).toBe(0);
    const totp = p.code();
    expectNativeOk(await withdraw(p.apiKey, { ...body, totp }), 201);
    expectNativeError(await withdraw(p.apiKey, { ...body, totp }), 401, 'invalid_totp');
    expectNativeOk(await withdraw(p.apiKey, { ...body, totp: p.recoveryCodes[0] }), 201);
    expect((await account(p.apiKey)).held_usd).toBe(22);
  });

  it('403 second_factor_required without one: a session of an account that turned it off, a key without a login', async () => {
    const p = await readyEarner(h, 100); // earnings matured, its address cooled
    const session = await anotherSession(h, p.email, { totp: p.code() });
    const off = { password: PASSWORD, totp: p.code() };
    expectNativeOk(await h.request('DELETE', '/v1/auth/totp', { key: session.access_token, body: off }));
    const body = { address_id: p.addressId, amount_usd: 10, totp: p.recoveryCodes[0] };
    for (const key of [p.apiKey, session.access_token]) {
      const refused = await withdraw(key, body);
      expectNativeError(refused, 403, 'second_factor_required');
      expect(refused.body.data.error).toMatch(/POST \/v1\/auth\/totp/);
    }
    expect(await account(p.apiKey)).toMatchObject({ held_usd: 0 });
    expect(await withdrawals(p.apiKey)).toEqual([]);
    // An account the operator made has no login, so no second factor: its key withdraws nothing, whatever it holds.
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 50 });
    expectNativeError(
      await withdraw(apiKey, { address_id: 'wad_none', amount_usd: 10 }),
      403,
      'second_factor_required',
    );
    expectNativeError(await withdraw(apiKey, { ...body, address_id: 'wad_none' }), 403, 'second_factor_required');
  });

  it("429 withdrawal_limit_reached past the account's daily total: what is left, when it resets, Retry-After", async () => {
    const p = await readyEarner(h, 100); // at 01:00 UTC
    const body = (amount_usd: number) => ({ address_id: p.addressId, amount_usd, totp: p.code() });
    expectNativeOk(await withdraw(p.apiKey, body(30)), 201); // 31 of the day's 60
    const totp = p.code();
    const refused = await withdraw(p.apiKey, { address_id: p.addressId, amount_usd: 30, totp });
    expectNativeError(refused, 429, 'withdrawal_limit_reached');
    const { remaining_usd, resets_at } = refused.body.data.meta;
    expect(remaining_usd).toBe(29);
    const resetsAtMs = Date.parse(resets_at);
    expect(resetsAtMs % DAY).toBe(0); // the next UTC midnight
    expect(resetsAtMs - h.deps.now()).toBeGreaterThan(22 * HOUR);
    expect(resetsAtMs - h.deps.now()).toBeLessThan(DAY);
    const retryAfterMs = Number(refused.headers.get('retry-after')) * 1000;
    expect(Math.abs(retryAfterMs - (resetsAtMs - h.deps.now()))).toBeLessThan(60_000);
    // Exactly what was left, with the same code: refused before it was checked, the code was not spent.
    expectNativeOk(await withdraw(p.apiKey, { address_id: p.addressId, amount_usd: 28, totp }), 201);
    h.advance(resetsAtMs - h.deps.now() + 1_000);
    expectNativeOk(await withdraw(p.apiKey, body(20)), 201); // a new day: 85 - 31 - 29 = 25 still withdrawable
  });

  it("429 withdrawal_limit_reached past the service's daily total, counted across accounts", async () => {
    const first = await readyEarner(h, 100);
    const second = await readyEarner(h, 100); // both ready on the same fresh day
    const body = (p: typeof first, amount_usd: number) => ({ address_id: p.addressId, amount_usd, totp: p.code() });
    expectNativeOk(await withdraw(first.apiKey, body(first, 50)), 201); // 51 of 100
    const totp = second.code();
    const refused = await withdraw(second.apiKey, { address_id: second.addressId, amount_usd: 50, totp });
    expectNativeError(refused, 429, 'withdrawal_limit_reached');
    expect(refused.body.data.meta.remaining_usd).toBe(49);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expectNativeOk(await withdraw(second.apiKey, { address_id: second.addressId, amount_usd: 48, totp }), 201);
  });

  it('402 account_in_debt while a refund has taken back money the account had spent', async () => {
    const person = await personWithFactor(h);
    const { apiKey } = person;
    const body = { method: 'sbp', amount_rub: 1600 };
    expectNativeOk(await h.request('POST', '/v1/payments/deposits', { key: apiKey, body }), 201);
    const paymentId = [...yookassa.payments.keys()].at(-1)!;
    yookassa.succeed(paymentId);
    await yookassa.outbox.deliver();
    await h.spend(apiKey, 18); // of the $20 the deposit credited
    yookassa.refund(paymentId, 160_000n); // all of it: $2 is left to take back, $18 becomes a debt
    await yookassa.outbox.deliver({ times: 2 });
    const refused = await withdraw(apiKey, { address_id: 'wad_none', amount_usd: 10, totp: person.code() });
    expectNativeError(refused, 402, 'account_in_debt');
    expect(refused.body.data.meta.debt_usd).toBe(18);
  });

  it('401 authentication_required without credentials', async () => {
    const body = { address_id: 'wad_none', amount_usd: 10 };
    const refused = await h.request('POST', '/v1/payments/withdrawals', { body });
    expectNativeError(refused, 401, 'authentication_required');
  });

  it('503 payment_rail_unavailable on a service without TRON settings', async () => {
    const plain = await startHarness();
    try {
      const { apiKey } = await plain.newAccount();
      const body = { address_id: 'wad_none', amount_usd: 10 };
      const refused = await call(plain.baseUrl, 'POST', '/v1/payments/withdrawals', { key: apiKey, body });
      expectNativeError(refused, 503, 'payment_rail_unavailable');
      expect(refused.body.data.meta.method).toBe('usdt_trc20');
    } finally {
      await plain.close();
    }
  });
});
