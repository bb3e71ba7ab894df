/** GET /v1/payments/export (issue 27 item 5): the account's deposits and withdrawals as CSV, newest first. */
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEPOSIT_ACCOUNT_PATH } from '../../src/lib/tron/deposit-address.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { earner, OUTSIDE, startWithdrawalsHarness, type WithdrawalsHarness } from '../setup/withdrawals.js';

const XPUB = HDKey.fromMasterSeed(
  mnemonicToSeedSync('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'),
).derive(DEPOSIT_ACCOUNT_PATH).publicExtendedKey;
const HEADER =
  'id,created_at,type,method,status,amount_usd,amount_rub,fee_usd,credited_usd,refunded_usd,tx_id,finished_at';

let h: WithdrawalsHarness;
beforeAll(async () => {
  h = await startWithdrawalsHarness({
    TRON_XPUB: XPUB,
    TRON_POLL_MS: '3600000',
    EARNINGS_HOLD_DAYS: '0',
    WITHDRAW_ADDRESS_COOLING_HOURS: '0',
  });
});
afterAll(() => h.close());

const today = () => new Date(h.deps.now()).toISOString().slice(0, 10);

describe('GET /v1/payments/export', () => {
  it('200: one line per deposit and withdrawal of the range, newest first; other accounts’ never', async () => {
    const provider = await earner(h, 100);
    const deposit = expectNativeOk(
      await h.request('POST', '/v1/payments/deposits', { key: provider.apiKey, body: { method: 'usdt_trc20' } }),
      201,
    );
    h.advance(1_000);
    const address = expectNativeOk(
      await h.request('POST', '/v1/payments/withdrawal-addresses', {
        key: provider.access_token,
        body: { address: OUTSIDE, totp: provider.code() },
      }),
      201,
    );
    h.advance(1_000);
    const body = { address_id: address.address_id, amount_usd: 12.5, totp: provider.code() };
    const withdrawal = expectNativeOk(
      await h.request('POST', '/v1/payments/withdrawals', { key: provider.apiKey, body }),
      201,
    );
    const stranger = await earner(h, 10);
    const strangers = expectNativeOk(
      await h.request('POST', '/v1/payments/deposits', { key: stranger.apiKey, body: { method: 'usdt_trc20' } }),
      201,
    );
    const response = await h.request('GET', `/v1/payments/export?from=${today()}&to=${today()}`, {
      key: provider.apiKey,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="payments-${today()}-${today()}.csv"`,
    );
    const lines = response.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe(HEADER);
    expect(lines.slice(1).map((l) => l.split(',').slice(0, 9))).toEqual([
      [withdrawal.withdrawal_id, withdrawal.created_at, 'withdrawal', 'usdt_trc20', 'approved', '12.5', '', '1', ''],
      [deposit.deposit_id, deposit.created_at, 'deposit', 'usdt_trc20', 'awaiting_transfer', '', '', '', ''],
    ]);
    expect(response.text).not.toContain(strangers.deposit_id);
  });

  it('200: a range without payments is the header alone; 400 for a range that ends before it starts', async () => {
    const provider = await earner(h, 10);
    const response = await h.request('GET', '/v1/payments/export?from=2020-01-01&to=2020-01-31', {
      key: provider.apiKey,
    });
    expect(response.status).toBe(200);
    expect(response.text).toBe(`${HEADER}\r\n`);
    expectNativeError(
      await h.request('GET', '/v1/payments/export?from=2020-02-01&to=2020-01-31', { key: provider.apiKey }),
      400,
      'invalid_request',
    );
  });
});
