/**
 * Issue 27 items 4 and 5 from the operator's side: withdrawals above WITHDRAW_APPROVAL_USD wait for the admin CLI
 * (`payments withdrawals list|approve|reject`), run as operators run it against the gateway's database file, and
 * `payments reconcile` finds every withdrawal's hold where its state says.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failed, ok, runAdmin } from '../setup/admin-cli.js';
import { expectNativeOk } from '../setup/envelopes.js';
import {
  type Earner,
  earner,
  OUTSIDE,
  startWithdrawalsHarness,
  type WithdrawalsHarness,
} from '../setup/withdrawals.js';

let h: WithdrawalsHarness;
let dir: string;
let databaseUrl: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cgw-review-'));
  databaseUrl = `sqlite:${join(dir, 'gateway.sqlite')}`;
  h = await startWithdrawalsHarness({
    DATABASE_URL: databaseUrl,
    EARNINGS_HOLD_DAYS: '0',
    WITHDRAW_ADDRESS_COOLING_HOURS: '0',
    WITHDRAW_APPROVAL_USD: '10',
  });
});
afterAll(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

const admin = (...args: string[]) => runAdmin(databaseUrl, ...args);
const heldUsd = async (p: Earner) =>
  expectNativeOk(await h.request('GET', '/v1/account', { key: p.apiKey })).held_usd as number;

const addressIds = new Map<string, string>();
async function withdrawal(p: Earner, amountUsd: number) {
  if (!addressIds.has(p.accountId)) {
    const body = { address: OUTSIDE, totp: p.code() };
    const entry = expectNativeOk(
      await h.request('POST', '/v1/payments/withdrawal-addresses', { key: p.access_token, body }),
      201,
    );
    addressIds.set(p.accountId, entry.address_id);
  }
  const body = { address_id: addressIds.get(p.accountId), amount_usd: amountUsd, totp: p.code() };
  return expectNativeOk(await h.request('POST', '/v1/payments/withdrawals', { key: p.apiKey, body }), 201);
}

describe('withdrawals an operator reviews', () => {
  it('waits above the threshold; approved, the signer takes it; rejected, its hold comes back', async () => {
    const provider = await earner(h, 100);
    const big = await withdrawal(provider, 30);
    expect(big.status).toBe('pending_review');
    expect(await h.sign()).toBe(0); // nothing to sign before an operator says so
    const waiting = ok(await admin('payments', 'withdrawals', 'list')).withdrawals as { withdrawal_id: string }[];
    expect(waiting.map((w) => w.withdrawal_id)).toContain(big.withdrawal_id);

    const approved = ok(await admin('payments', 'withdrawals', 'approve', '--id', big.withdrawal_id, '--by', 'alice'));
    expect(approved).toMatchObject({ status: 'approved', approved_by: 'alice', account_id: provider.accountId });
    expect(await h.sign()).toBe(1);
    failed(await admin('payments', 'withdrawals', 'approve', '--id', big.withdrawal_id, '--by', 'bob'), 2);

    const other = await withdrawal(provider, 20);
    expect(await heldUsd(provider)).toBe(31 + 21);
    const rejected = ok(
      await admin('payments', 'withdrawals', 'reject', '--id', other.withdrawal_id, '--reason', 'kyc'),
    );
    expect(rejected).toMatchObject({ status: 'rejected', failure_reason: 'kyc' });
    expect(await heldUsd(provider)).toBe(31);
    // Again (as after a crash between the two steps): the release is found done, nothing moves twice.
    ok(await admin('payments', 'withdrawals', 'reject', '--id', other.withdrawal_id, '--reason', 'kyc'));
    expect(await heldUsd(provider)).toBe(31);
    failed(await admin('payments', 'withdrawals', 'reject', '--id', big.withdrawal_id, '--reason', 'late'), 2);
    failed(await admin('payments', 'withdrawals', 'list', '--status', 'nonsense'), 2);

    const report = ok(await admin('payments', 'reconcile')) as {
      withdrawals: { checked: number; differences: unknown[] };
    };
    expect(report.withdrawals).toMatchObject({ differences: [] });
    expect(report.withdrawals.checked).toBeGreaterThanOrEqual(2);
  });
});
