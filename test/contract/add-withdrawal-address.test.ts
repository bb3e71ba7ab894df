/**
 * POST /v1/payments/withdrawal-addresses (issue 27 item 4; docs/payments.md "Withdrawals"): a signed-in session,
 * and the second factor the account must have (DESIGN.md 10), puts a canonical TRON address that can receive USDT
 * from us in the book; it cools for 24 h and the account's email is told. Deposits are on (TRON_XPUB) so ours can
 * be refused.
 */
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToHex } from '../../src/lib/tron/address.js';
import { DEPOSIT_ACCOUNT_PATH } from '../../src/lib/tron/deposit-address.js';
import { type SignedUpSession, signedUpSession, totpCode, withTotp } from '../setup/accounts.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { expectIdempotencyContract } from '../setup/idempotency.js';
import {
  freshTronAddress,
  OUTSIDE,
  personWithFactor,
  startWithdrawalsHarness,
  USDT,
  type WithdrawalsHarness,
} from '../setup/withdrawals.js';

const DAY = 24 * 3_600_000;
/** The deposit wallet's account-level xpub (m/44'/195'/0'), as test/integration/deposits-usdt.test.ts has it. */
const XPUB = HDKey.fromMasterSeed(
  mnemonicToSeedSync('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'),
).derive(DEPOSIT_ACCOUNT_PATH).publicExtendedKey;

let h: WithdrawalsHarness;
beforeAll(async () => {
  h = await startWithdrawalsHarness({ TRON_XPUB: XPUB, TRON_POLL_MS: '3600000' });
});
afterAll(() => h.close());

const add = (token: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  h.request('POST', '/v1/payments/withdrawal-addresses', { key: token, body, headers });
const book = async (token: string) =>
  expectNativeOk(await h.request('GET', '/v1/payments/withdrawal-addresses', { key: token })).addresses as {
    address: string;
  }[];
const depositAddress = async (token: string) => {
  const body = { method: 'usdt_trc20' };
  return expectNativeOk(await h.request('POST', '/v1/payments/deposits', { key: token, body }), 201).address as string;
};
/** The next mail to `email` with this subject (others, such as sign-in notices, are passed over). */
async function mailWithSubject(email: string, subject: string) {
  for (;;) {
    const mail = await h.mailTo(email);
    if (mail.subject === subject) return mail;
  }
}
const apiKeyOf = async (person: SignedUpSession) => {
  const body = { name: 'agent' };
  return expectNativeOk(await h.request('POST', '/v1/llm/api-keys', { key: person.access_token, body }), 201)
    .api_key as string;
};

describe('POST /v1/payments/withdrawal-addresses', { timeout: 30_000 }, () => {
  it("201: the address, cooling for 24 h; the account's mailbox is told; it is in the book", async () => {
    const person = await personWithFactor(h);
    const body = { address: OUTSIDE, label: 'cold wallet', totp: person.code() };
    const entry = expectNativeOk(await add(person.access_token, body), 201);
    expect(entry).toMatchObject({ address: OUTSIDE, label: 'cold wallet' });
    expect(entry.address_id).toMatch(/^wad_/);
    expect(Date.parse(entry.usable_from) - Date.parse(entry.created_at)).toBe(DAY);
    const mail = await mailWithSubject(person.email, 'A withdrawal address was added');
    expect(mail.text).toContain(OUTSIDE);
    expect(mail.text).toContain(entry.usable_from);
    expect(await book(person.access_token)).toEqual([entry]);
  });

  it('201 replayed for the same Idempotency-Key: one entry; 409 for another body', async () => {
    const person = await personWithFactor(h);
    const totp = person.code(); // a replay is answered from the first request: its code is not asked for again
    const first = await expectIdempotencyContract(
      (body, key) => add(person.access_token, body as Record<string, unknown>, { 'idempotency-key': key }),
      { first: { address: freshTronAddress(), totp }, other: { address: freshTronAddress(), totp } },
      'native',
      201,
    );
    expect(await book(person.access_token)).toEqual([first.body.data]);
  });

  it('400 invalid_withdrawal_address: not canonical base58check, the USDT contract, the hot wallet, ours', async () => {
    const person = await personWithFactor(h);
    const other = await personWithFactor(h);
    const notTron = 'Not a TRON address';
    const refused: [string, string][] = [
      [`${OUTSIDE.slice(0, -1)}U`, notTron], // the checksum does not match
      [OUTSIDE.toLowerCase(), notTron],
      [addressToHex(OUTSIDE)!, notTron], // the same address as hex: not the form a withdrawal takes
      ['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', notTron], // base58check of another chain
      [USDT, 'USDT token contract'],
      [h.hotWallet, "service's own wallet"],
      [await depositAddress(person.access_token), 'deposit address of this service'],
      [await depositAddress(other.access_token), 'deposit address of this service'],
    ];
    // Half each: a deposit address is refused only after the code (a session without it cannot ask which addresses are
    // ours), and one account may try 5 codes per 15 min (auth-throttle.ts).
    for (const [i, [address, why]] of refused.entries()) {
      const who = i % 2 === 0 ? person : other;
      const response = await add(who.access_token, { address, totp: who.code() });
      expectNativeError(response, 400, 'invalid_withdrawal_address');
      expect(response.body.data.error).toContain(why);
    }
    expect(await book(person.access_token)).toEqual([]);
    expect(await book(other.access_token)).toEqual([]);
  });

  it('400 for a mistyped address before the code is looked at: the code is not spent, and adds the right one', async () => {
    const person = await personWithFactor(h);
    const totp = person.code();
    expectNativeError(
      await add(person.access_token, { address: OUTSIDE.slice(0, -1), totp }),
      400,
      'invalid_withdrawal_address',
    );
    expect(expectNativeOk(await add(person.access_token, { address: OUTSIDE, totp }), 201).address).toBe(OUTSIDE);
  });

  it('409 withdrawal_address_taken: the same address again, spaces around it too; another account may add it', async () => {
    const person = await personWithFactor(h);
    const address = freshTronAddress();
    const addAs = (who: typeof person, at: string) => add(who.access_token, { address: at, totp: who.code() });
    const entry = expectNativeOk(await addAs(person, address), 201);
    expectNativeError(await addAs(person, address), 409, 'withdrawal_address_taken');
    expectNativeError(await addAs(person, ` ${address}\n`), 409, 'withdrawal_address_taken');
    expect(await book(person.access_token)).toEqual([entry]);
    const other = await personWithFactor(h);
    expect(expectNativeOk(await addAs(other, address), 201).address).toBe(address);
  });

  it('401 totp_required without the code, invalid_totp for a wrong one; a code or a recovery code passes', async () => {
    const person = await signedUpSession(h);
    const { secret, recoveryCodes } = await withTotp(h, person.access_token);
    const address = freshTronAddress();
    expectNativeError(await add(person.access_token, { address }), 401, 'totp_required');
    expectNativeError(await add(person.access_token, { address, totp: 'aaaa-bbbb-cccc-dddd' }), 401, 'invalid_totp');
    expect(await book(person.access_token)).toEqual([]);
    expectNativeOk(await add(person.access_token, { address, totp: totpCode(h, secret) }), 201);
    const second = { address: freshTronAddress(), totp: recoveryCodes[0] };
    expectNativeOk(await add(person.access_token, second), 201);
  });

  it('403 second_factor_required for an account without one, whatever totp says; once enrolled, its code passes', async () => {
    const person = await signedUpSession(h);
    const address = freshTronAddress();
    for (const body of [{ address }, { address, totp: '123456' }, { address, totp: 'aaaa-bbbb-cccc-dddd' }]) {
      const refused = await add(person.access_token, body);
      expectNativeError(refused, 403, 'second_factor_required');
      expect(refused.body.data.error).toMatch(/POST \/v1\/auth\/totp/);
    }
    expect(await book(person.access_token)).toEqual([]);
    const { secret } = await withTotp(h, person.access_token);
    expectNativeOk(await add(person.access_token, { address, totp: totpCode(h, secret) }), 201);
    // The only mail about an address is the one added.
    const mail = await mailWithSubject(person.email, 'A withdrawal address was added');
    expect(h.smtp.received.filter((m) => m.subject === mail.subject && m.envelopeTo.includes(person.email))).toEqual([
      mail,
    ]);
  });

  it('403 session_required with an API key, even the account’s own; 401 without credentials', async () => {
    const person = await signedUpSession(h);
    const apiKey = await apiKeyOf(person);
    expectNativeError(await add(apiKey, { address: OUTSIDE }), 403, 'session_required');
    const anonymous = await h.request('POST', '/v1/payments/withdrawal-addresses', { body: { address: OUTSIDE } });
    expectNativeError(anonymous, 401, 'authentication_required');
    expect(await book(person.access_token)).toEqual([]);
  });
});
