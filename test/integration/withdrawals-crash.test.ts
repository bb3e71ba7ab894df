/**
 * Issue 27 item 4 ("kill -9 at every step leaves it recoverable and exact") and item 7 ("a crash between sign and
 * broadcast and between broadcast and confirmation"), the hard way: real gateway processes (`src/main.ts`) and the
 * real signer (`src/signer/cli.ts --once`) over one database, a fake java-tron node in this process behind a link
 * that can refuse broadcasts and records every one. A provider signs up through the API (its mail read from a test
 * SMTP server) and earns from a renter's rental on the gateway; each withdrawal of those earnings is crashed at
 * one step, and must still be sent as its one signed transaction and leave the balance exactly amount + fee lower.
 * On the SQLite file and on PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceMicros, type Ledger } from '../../src/adapters/ledger/index.js';
import { openLedger } from '../../src/adapters/ledger/open.js';
import type { WithdrawalRecord, WithdrawalStatus } from '../../src/adapters/withdrawal-store/index.js';
import { SqlWithdrawalStore } from '../../src/adapters/withdrawal-store/sql.js';
import { connectDatabase, type Database } from '../../src/db/connect.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { reconcileWithdrawals } from '../../src/domain/payments/withdrawal-reconcile.js';
import { withdrawalHoldId } from '../../src/domain/payments/withdrawals-context.js';
import { addressFromPrivateKey } from '../../src/lib/tron/key-address.js';
import { type FakeJavaTron, startFakeJavaTron } from '../fakes/java-tron.js';
import { expectNativeOk } from '../setup/envelopes.js';
import { call } from '../setup/harness.js';
import { eventually } from '../setup/polling.js';
import { processBackends, type ServerProcess, startServerProcess } from '../setup/server-process.js';
import { startSmtpServer, type TestSmtpServer } from '../setup/smtp-server.js';
import { sleep } from '../setup/time.js';
import {
  earnOnProcess,
  type NodeLink,
  type ProcessEarner,
  runSignerOnce,
  startNodeLink,
  startSigner,
  writeSignerKeyFile,
} from '../setup/withdrawal-processes.js';
import { OUTSIDE, USDT } from '../setup/withdrawals.js';

const USD = 1_000_000n;
/** WITHDRAW_FEE_USD's default. */
const FEE = USD;
/** Generous: a 2-core machine running both databases' processes schedules them late. */
const WITHIN_MS = 30_000;

let dir: string;
let node: FakeJavaTron;
let link: NodeLink;
let smtp: TestSmtpServer;
let keyFile: string;
const hotKey = secp256k1.utils.randomSecretKey();
const hotWallet = addressFromPrivateKey(hotKey);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cgw-withdrawals-crash-'));
  node = await startFakeJavaTron({ token: USDT, firstBlockNumber: 70_000_000, firstBlockTimeMs: Date.now() });
  node.chain.mint(hotWallet, 1_000_000n * USD);
  link = await startNodeLink(node.url);
  smtp = await startSmtpServer();
  keyFile = writeSignerKeyFile(dir, hotKey);
});

afterAll(async () => {
  await link?.close();
  await node?.close();
  await smtp?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Puts what the node pooled into a block and solidifies it: the transactions of that block. */
function mine(): string[] {
  const { number } = node.chain.mineBlock();
  node.chain.solidify();
  return node.chain.block(number)!.infos.map((info) => info.txid);
}

const usdtOf = (address: string) => node.chain.trc20Balance(address, USDT, { solid: true });

describe.each(processBackends(() => dir))('withdrawals across kill -9, on $name', ({ open }) => {
  let url: string;
  let drop: () => Promise<void>;
  let db: Database;
  let ledger: Ledger;
  let store: SqlWithdrawalStore;
  /** The gateway processes running now. */
  let gateways: ServerProcess[] = [];
  let provider: ProcessEarner;
  let addressId: string;

  const gatewayEnv = () => ({
    SMTP_URL: smtp.url,
    PASSWORD_SCRYPT_LOG2N: '14',
    TRON_NODE_URL: link.url,
    TRON_HOT_WALLET_ADDRESS: hotWallet,
    TRON_USDT_CONTRACT: USDT,
    WITHDRAW_POLL_MS: '200',
    WITHDRAW_MIN_USD: '1',
    EARNINGS_HOLD_DAYS: '0',
    WITHDRAW_ADDRESS_COOLING_HOURS: '0',
    TUNNEL_PORT: '0',
    CHARGE_JOURNAL_DIR: join(dir, 'journal'),
    BLOB_DIR: join(dir, 'files'),
  });
  const signerEnv = () => ({
    DATABASE_URL: url,
    TRON_NODE_URL: link.url,
    TRON_USDT_CONTRACT: USDT,
    TRON_SIGNER_KEY_FILE: keyFile,
  });
  const startGateway = async () => {
    const gateway = await startServerProcess(url, gatewayEnv());
    gateways.push(gateway);
    return gateway;
  };
  const kill9 = async (gateway: ServerProcess) => {
    gateways = gateways.filter((g) => g !== gateway);
    if (gateway.child.exitCode !== null || gateway.child.signalCode !== null) return;
    const exited = new Promise((resolve) => gateway.child.once('exit', resolve));
    gateway.child.kill('SIGKILL');
    await exited;
  };

  beforeAll(async () => {
    ({ url, drop } = await open());
    db = connectDatabase(url);
    await migrateToLatest(db);
    ledger = openLedger(db);
    store = new SqlWithdrawalStore(db);
    const gateway = await startGateway();
    provider = await earnOnProcess(gateway.baseUrl, smtp, db, 2_000);
    const entry = await call(gateway.baseUrl, 'POST', '/v1/payments/withdrawal-addresses', {
      key: provider.accessToken,
      body: { address: OUTSIDE, totp: provider.secondFactor() },
    });
    addressId = expectNativeOk(entry, 201).address_id;
  }, 60_000);

  afterAll(async () => {
    await Promise.all(gateways.map(kill9));
    await db?.knex.destroy();
    await drop?.();
  });

  /** A withdrawal requested through the running gateway, held and approved there: its id. */
  async function withdraw(amountUsd: number): Promise<string> {
    const body = { address_id: addressId, amount_usd: amountUsd, totp: provider.secondFactor() };
    const response = await call(gateways[0]!.baseUrl, 'POST', '/v1/payments/withdrawals', {
      key: provider.apiKey,
      body,
    });
    const requested = expectNativeOk(response, 201);
    expect(requested.status).toBe('approved');
    return requested.withdrawal_id;
  }

  const reached = (id: string, status: WithdrawalStatus): Promise<WithdrawalRecord> =>
    eventually(
      async () => {
        const w = await store.get(id);
        return w?.status === status ? w : undefined;
      },
      WITHIN_MS,
      `withdrawal ${status}`,
    );

  /** What the provider holds in the ledger, and what the chain's two ends hold, before withdrawals. */
  const snapshot = async () => ({
    balance: balanceMicros(await ledger.getBalance(provider.accountId)),
    outside: await usdtOf(OUTSIDE),
    hot: await usdtOf(hotWallet),
    broadcasts: link.broadcasts.length,
  });

  /**
   * Each completed on chain as its one signed transaction, and nothing else since `before`: every broadcast sent
   * exactly the stored bytes of one of them, each hold is posted once as amount + fee, the provider's balance is
   * exactly their Σ amount + fee lower, and the USDT moved once each.
   */
  async function expectExactlyOnce(before: Awaited<ReturnType<typeof snapshot>>, sent: Record<string, number>) {
    const hexes = new Set<string>();
    let amounts = 0n;
    for (const [id, amountUsd] of Object.entries(sent)) {
      const amount = BigInt(amountUsd) * USD;
      const done = (await store.get(id))!;
      expect(done).toMatchObject({ status: 'completed', blockNumber: expect.any(Number) });
      expect(node.chain.info(done.signed!.txid, true)).toMatchObject({ failed: false, receiptResult: 'SUCCESS' });
      expect(await ledger.getHold(withdrawalHoldId(id))).toMatchObject({
        status: 'posted',
        postedMicros: amount + FEE,
      });
      hexes.add(done.signed!.hex);
      amounts += amount;
    }
    expect(new Set(link.broadcasts.slice(before.broadcasts))).toEqual(hexes);
    const balance = await ledger.getBalance(provider.accountId);
    const fees = FEE * BigInt(hexes.size);
    expect({ held: balance.heldMicros, lost: before.balance - balanceMicros(balance) }).toEqual({
      held: 0n,
      lost: amounts + fees,
    });
    expect(await usdtOf(OUTSIDE)).toBe(before.outside + amounts);
    expect(await usdtOf(hotWallet)).toBe(before.hot - amounts);
  }

  it('a provider earned on the gateway, and may withdraw it', async () => {
    const listed = await call(gateways[0]!.baseUrl, 'GET', '/v1/payments/withdrawals', { key: provider.apiKey });
    // 2 s of the rig at 85 %: $30 and more; the three withdrawals below take $21.
    expect(expectNativeOk(listed).withdrawable_usd).toBeGreaterThan(21);
  });

  it('kill -9 with one withdrawal signed and not sent, another sent and not confirmed: each ends exactly once', async () => {
    const before = await snapshot();
    const sent = await withdraw(6);
    await runSignerOnce(signerEnv());
    const broadcast = (await reached(sent, 'broadcast')).signed!;

    link.refuseBroadcasts = true;
    const unsent = await withdraw(5);
    await runSignerOnce(signerEnv());
    const signed = (await store.get(unsent))!.signed!;
    // The running gateway tried to send those bytes and the node would not take them: it dies right there.
    await eventually(async () => (link.broadcasts.includes(signed.hex) ? true : undefined), WITHIN_MS);
    await kill9(gateways[0]!);
    expect((await store.get(unsent))?.status).toBe('signed');
    expect((await store.get(sent))?.status).toBe('broadcast');
    expect(mine()).toEqual([broadcast.txid]); // the one sent lands while no gateway runs

    link.refuseBroadcasts = false;
    await startGateway();
    await reached(sent, 'completed');
    expect((await reached(unsent, 'broadcast')).signed).toEqual(signed);
    expect(mine()).toEqual([signed.txid]);
    await reached(unsent, 'completed');
    await expectExactlyOnce(before, { [sent]: 6, [unsent]: 5 });
  }, 90_000);

  it('signers killed as they start, again and again, leave one signature: the one sent', async () => {
    const before = await snapshot();
    const id = await withdraw(7);
    const txids = new Set<string>();
    // Killed at spawn, then at and after the moment it starts its pass: before, during and maybe after its store.
    for (const afterStartMs of [null, 0, 2, 5, 15]) {
      const signer = startSigner(signerEnv());
      if (afterStartMs !== null) {
        await signer.started;
        await sleep(afterStartMs);
      }
      signer.child.kill('SIGKILL');
      await signer.exited;
      const now = await store.get(id);
      if (now?.signed) txids.add(now.signed.txid);
    }
    await runSignerOnce(signerEnv());
    const { signed } = (await store.get(id))!;
    expect(signed).not.toBeNull();
    txids.add(signed!.txid);
    expect([...txids]).toEqual([signed!.txid]);

    await reached(id, 'broadcast');
    expect(mine()).toEqual([signed!.txid]);
    await reached(id, 'completed');
    await expectExactlyOnce(before, { [id]: 7 });
  }, 60_000);

  it('leaves the books balanced and every withdrawal as the chain has it', async () => {
    const { checked, differences } = await reconcileWithdrawals(
      { withdrawals: store, ledger, now: Date.now },
      node.chain,
    );
    expect(checked).toBe(3);
    expect(differences).toEqual([]);
    expect(await ledger.sumOfAllBalances()).toBe(0n);
  });
});
