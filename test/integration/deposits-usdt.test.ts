import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanUsdtDeposits } from '../../src/domain/payments/usdt-deposits.js';
import { DEPOSIT_ACCOUNT_PATH } from '../../src/lib/tron/deposit-address.js';
import { type FakeJavaTron, startFakeJavaTron } from '../fakes/java-tron.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const OTHER_TOKEN = 'TXLAQ63Xg1NAzckPwKHvzw7CSEmLMEqcdj';
/** Someone paying in: any address that holds USDT on the fake chain. */
const SENDER = 'TY72iA3SBtrds3QLYsS7LwYfkzXwAXCRWT';
/** The deposit wallet's account-level xpub (m/44'/195'/0'); its first address is TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH. */
const XPUB = HDKey.fromMasterSeed(
  mnemonicToSeedSync('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'),
).derive(DEPOSIT_ACCOUNT_PATH).publicExtendedKey;

let h: Harness;
let node: FakeJavaTron;
beforeAll(async () => {
  node = await startFakeJavaTron({ token: USDT, firstBlockNumber: 60_000_000 });
  node.chain.mint(SENDER, 1_000_000_000n);
  h = await startHarness({ TRON_XPUB: XPUB, TRON_NODE_URL: node.url, TRON_POLL_MS: '3600000' });
  await scan(); // the watcher's first round starts at the head
});
afterAll(async () => {
  await h.close();
  await node.close();
});

const scan = () => scanUsdtDeposits(h.deps.payments, h.deps.payments.usdt!);
const balance = async (apiKey: string) =>
  expectNativeOk(await call(h.baseUrl, 'GET', '/v1/account', { key: apiKey })).balance_usd as number;
const usdtDeposit = async (apiKey: string) =>
  expectNativeOk(
    await call(h.baseUrl, 'POST', '/v1/payments/deposits', { key: apiKey, body: { method: 'usdt_trc20' } }),
    201,
  );

/** Sends `amount` base units of `contract` to `to` in the next block, and solidifies it. */
function send(to: string, amount: bigint, contract = USDT, receipt = 'SUCCESS'): string {
  const txid = node.chain.addTransfers([{ contract, from: SENDER, to, amount }], receipt);
  node.chain.mineBlock();
  node.chain.solidify();
  return txid;
}

/** Issue 27 item 3: USDT-TRC20 deposits to an address of the account's own, credited once per transfer. */
describe('USDT-TRC20 deposits', () => {
  it('hands an account one address of its own, the same every time', async () => {
    const { apiKey } = await h.newAccount();
    const first = await usdtDeposit(apiKey);
    const again = await usdtDeposit(apiKey);
    expect(first).toMatchObject({ method: 'usdt_trc20', status: 'awaiting_transfer', checkout_url: null });
    expect(first.address).toMatch(/^T/);
    expect(again.address).toBe(first.address);
    const other = await h.newAccount();
    expect((await usdtDeposit(other.apiKey)).address).not.toBe(first.address);
  });

  it('credits a solidified transfer once, 1 USDT = $1, into the deposit that was waiting', async () => {
    const { apiKey } = await h.newAccount();
    const deposit = await usdtDeposit(apiKey);
    const txid = node.chain.addTransfers([{ contract: USDT, from: SENDER, to: deposit.address, amount: 12_500_000n }]);
    node.chain.mineBlock();
    await scan();
    expect(await balance(apiKey)).toBe(0); // in a block, not yet solidified
    node.chain.solidify();
    await scan();
    await scan();
    expect(await balance(apiKey)).toBe(12.5);
    const seen = expectNativeOk(
      await call(h.baseUrl, 'GET', `/v1/payments/deposits/${deposit.deposit_id}`, { key: apiKey }),
    );
    expect(seen).toMatchObject({ status: 'credited', credited_usd: 12.5, amount_usd: 12.5, tx_id: txid });
  });

  it('ignores other tokens, zero values, failed transfers and addresses of no account', async () => {
    const { apiKey } = await h.newAccount();
    const { address } = await usdtDeposit(apiKey);
    send(address, 5_000_000n, OTHER_TOKEN);
    send(address, 0n);
    send(address, 5_000_000n, USDT, 'REVERT');
    send('TSiXa4Yv9kwqZaw71fvMjLd5QcrQRzJdhc', 5_000_000n);
    await scan();
    expect(await balance(apiKey)).toBe(0);
  });

  it('a second transfer becomes a deposit of its own; a watcher restarted from its saved height catches up once', async () => {
    const { apiKey } = await h.newAccount();
    const { address } = await usdtDeposit(apiKey);
    send(address, 1_000_000n);
    await scan();
    send(address, 2_000_000n);
    send(address, 3_000_000n);
    await h.deps.payments.deposits.setCursor('tron', (await h.deps.payments.deposits.cursor('tron'))! - 3); // replayed
    await scan();
    expect(await balance(apiKey)).toBe(6);
    const deposits = expectNativeOk(await call(h.baseUrl, 'GET', '/v1/payments/deposits', { key: apiKey })).deposits;
    expect(deposits.map((d: { status: string }) => d.status)).toEqual(['credited', 'credited', 'credited']);
  });

  it('400 invalid_deposit: a USDT deposit with an amount', async () => {
    const { apiKey } = await h.newAccount();
    const response = await call(h.baseUrl, 'POST', '/v1/payments/deposits', {
      key: apiKey,
      body: { method: 'usdt_trc20', amount_usd: 10 },
    });
    expectNativeError(response, 400, 'invalid_deposit');
  });
});
