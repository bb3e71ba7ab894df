/**
 * The real admin CLI in a child process (as operators run it), on a temporary SQLite file. Checks the
 * pipe-friendly contract: one JSON object on stdout, one JSON line on stderr on failure, exit codes 0/1/2.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlApiKeyStore } from '../../src/adapters/api-keys/sql.js';
import { SqlMarketStore } from '../../src/adapters/market-store/sql.js';
import { connectDatabase, type Database } from '../../src/db/connect.js';
import { hashApiKey } from '../../src/domain/keys/api-key-secret.js';
import { newId } from '../../src/lib/ids.js';
import { instance, machine } from '../adapters/market-store.conformance.js';
import { failed, ok, runAdmin } from '../setup/admin-cli.js';

let dir: string;
let databaseUrl: string;

const admin = (...args: string[]) => runAdmin(databaseUrl, ...args);

/** Reads the CLI's database directly, to prove what it printed is what it stored. */
async function withStore<T>(use: (store: SqlApiKeyStore) => Promise<T>): Promise<T> {
  const db: Database = connectDatabase(databaseUrl);
  try {
    return await use(new SqlApiKeyStore(db));
  } finally {
    await db.knex.destroy();
  }
}

describe('admin CLI', { timeout: 30_000 }, () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cgw-admin-'));
    databaseUrl = `sqlite:${join(dir, 'gateway.sqlite')}`;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  let accountId: string;
  let firstKey: { key_id: string; api_key: string };

  it('accounts create prints the account and its first key', async () => {
    const out = ok(await admin('accounts', 'create', '--email', 'Ops@Example.COM'));
    expect(out).toEqual({
      account_id: expect.stringMatching(/^acc_/),
      api_key: expect.stringMatching(/^cgw_[0-9A-Za-z]{40}$/),
      key_id: expect.stringMatching(/^key_/),
    });
    accountId = out.account_id as string;
    firstKey = { key_id: out.key_id as string, api_key: out.api_key as string };
    const resolved = await withStore((s) => s.resolveKey(hashApiKey(firstKey.api_key)));
    expect(resolved).toMatchObject({
      key: { id: firstKey.key_id, accountId },
      account: { id: accountId, email: 'ops@example.com' },
    });
  });

  it('refuses a taken email (case-insensitively) with exit 1 and JSON on stderr', async () => {
    expect(failed(await admin('accounts', 'create', '--email', 'ops@example.com'), 1)).toMatchObject({
      error: 'email_taken',
    });
  });

  it('keys create issues another key for the account', async () => {
    const out = ok(await admin('keys', 'create', '--account', accountId, '--name', 'ci'));
    expect(out).toEqual({ key_id: expect.stringMatching(/^key_/), api_key: expect.stringMatching(/^cgw_/) });
    const key = await withStore((s) => s.getKey(out.key_id as string));
    expect(key).toMatchObject({ accountId, name: 'ci' });
    expect(failed(await admin('keys', 'create', '--account', 'acc_missing'), 1).error).toBe('account_not_found');
  });

  it('keys revoke reports the revocation time and keeps the first one on a repeat', async () => {
    const first = ok(await admin('keys', 'revoke', '--key-id', firstKey.key_id));
    expect(first).toEqual({ key_id: firstKey.key_id, revoked_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) });
    expect(ok(await admin('keys', 'revoke', '--key-id', firstKey.key_id))).toEqual(first);
    const key = await withStore((s) => s.getKey(firstKey.key_id));
    expect(new Date(key!.revokedAtMs!).toISOString()).toBe(first.revoked_at);
    expect(failed(await admin('keys', 'revoke', '--key-id', 'key_missing'), 1).error).toBe('api_key_not_found');
  });

  it('accounts discount sets the flat and per-tier discounts', async () => {
    const out = ok(
      await admin(
        'accounts',
        'discount',
        '--account',
        accountId,
        '--percent',
        '12.5',
        '--tier',
        'premium=20',
        '--tier',
        'basic=5',
      ),
    );
    expect(out).toEqual({ account_id: accountId, discount_percent: 12.5, tier_discounts: { premium: 20, basic: 5 } });
  });

  it('accounts delete removes the account but leaves its keys resolvable to no account', async () => {
    expect(ok(await admin('accounts', 'delete', '--account', accountId))).toEqual({
      account_id: accountId,
      deleted: true,
    });
    const resolved = await withStore((s) => s.resolveKey(hashApiKey(firstKey.api_key)));
    expect(resolved).toMatchObject({ key: { id: firstKey.key_id }, account: null });
    expect(failed(await admin('accounts', 'delete', '--account', accountId), 1).error).toBe('account_not_found');
  });

  it('--help prints the usage on stdout with exit 0, for the CLI and for one command', async () => {
    for (const args of [['--help'], ['-h'], ['help']]) {
      const run = await admin(...args);
      expect(run, run.stderr).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout).toMatch(/^usage: npm run --silent admin -- <command>/);
      expect(run.stdout).toContain('accounts create --email EMAIL');
      expect(run.stdout).toContain('machines deverify --machine MACHINE_ID');
    }
    const one = await admin('accounts', 'create', '--help');
    expect(one).toEqual({
      code: 0,
      stderr: '',
      stdout: 'usage: npm run --silent admin -- accounts create --email EMAIL [--balance-usd N]\n',
    });
  });

  it.each([
    ['no command', []],
    ['an unknown command', ['accounts', 'frobnicate']],
    ['a missing required option', ['accounts', 'create']],
    ['an unknown option', ['keys', 'create', '--account', 'acc_x', '--colour', 'red']],
    ['a malformed percent', ['accounts', 'discount', '--account', 'acc_x', '--percent', 'ten']],
  ])('answers a usage error with exit 2 for %s', async (_label, args) => {
    expect(failed(await admin(...args), 2).error).toBe('usage');
  });
});

describe('money and limits commands', () => {
  it('accounts create --balance-usd opens with a dollar top-up; topup adds ruble lots at their rate', async () => {
    const created = ok(
      await admin('accounts', 'create', '--email', `money-${Date.now()}@example.com`, '--balance-usd', '12.5'),
    );
    expect(created.balance_usd).toBe(12.5);
    const accountId = String(created.account_id);
    const rub = ok(await admin('topup', '--account', accountId, '--usd', '10', '--rub', '925'));
    expect(rub).toMatchObject({ currency: 'RUB', fx_rate_rub: 92.5, amount_usd: 10, balance_usd: 22.5 });
    const byRate = ok(
      await admin('topup', '--account', accountId, '--usd', '1', '--fx-rate', '101.25', '--id', 'pay_1'),
    );
    expect(byRate).toMatchObject({ fx_rate_rub: 101.25, balance_usd: 23.5, topup_id: 'topup:pay_1' });
    // Same idempotency key again: the original top-up, not a second one.
    expect(
      ok(await admin('topup', '--account', accountId, '--usd', '1', '--fx-rate', '101.25', '--id', 'pay_1'))
        .balance_usd,
    ).toBe(23.5);
  });

  it('topup settles the account’s running rentals first: what they ran before it is charged, the provider paid', async () => {
    const created = ok(
      await admin('accounts', 'create', '--email', `renter-${Date.now()}@example.com`, '--balance-usd', '10'),
    );
    const accountId = String(created.account_id);
    const now = Date.now();
    const rig = machine({ lastHeartbeatMs: now });
    const db: Database = connectDatabase(databaseUrl);
    const market = new SqlMarketStore(db);
    try {
      await market.addMachine(rig);
      // A minute-plan rental running for the last hour, confirmed by its agent's heartbeat now: 60 × $0.006666.
      const placed = await market.place(
        instance(rig, { accountId, status: 'running', runningSinceMs: now - 3_600_000, createdAtMs: now - 3_600_000 }),
      );
      if (!placed.ok) throw new Error('not placed');
    } finally {
      await db.knex.destroy();
    }
    expect(ok(await admin('topup', '--account', accountId, '--usd', '5')).balance_usd).toBe(14.60004);
    const check: Database = connectDatabase(databaseUrl);
    try {
      const [rental] = await new SqlMarketStore(check).machineInstances(rig.id);
      expect(rental).toMatchObject({ chargedMicros: 399_960n, pendingChargeMicros: 0n, settleSeq: 1 });
    } finally {
      await check.knex.destroy();
    }
  });

  it('refuses bad amounts (exit 2) and unknown accounts (exit 1)', async () => {
    expect(failed(await admin('topup', '--account', 'acc_x', '--usd', '-5'), 2).error).toBe('usage');
    expect(failed(await admin('topup', '--account', 'acc_x', '--usd', '1e3'), 2).error).toBe('usage');
    expect(failed(await admin('topup', '--account', 'acc_nope', '--usd', '5'), 1).error).toBe('account_not_found');
  });

  it('sets and resets per-key and per-account limits', async () => {
    const created = ok(await admin('accounts', 'create', '--email', `limits-${Date.now()}@example.com`));
    expect(ok(await admin('keys', 'limit', '--key-id', String(created.key_id), '--per-minute', '30'))).toEqual({
      key_id: created.key_id,
      requests_per_minute: 30,
    });
    expect(
      ok(await admin('accounts', 'limit', '--account', String(created.account_id), '--per-minute', 'default')),
    ).toEqual({
      account_id: created.account_id,
      requests_per_minute: null,
    });
    const key = await withStore((store) => store.getKey(String(created.key_id)));
    expect(key?.rateLimitPerMinute).toBe(30);
    expect(failed(await admin('keys', 'limit', '--key-id', 'key_nope', '--per-minute', '5'), 1).error).toBe(
      'api_key_not_found',
    );
    expect(failed(await admin('keys', 'limit', '--key-id', 'key_nope', '--per-minute', '0'), 2).error).toBe('usage');
  });
});

describe('marketplace commands', () => {
  it('verifies a machine and takes it back; an unknown machine is machine_not_found (exit 1)', async () => {
    const db: Database = connectDatabase(databaseUrl);
    const market = new SqlMarketStore(db);
    const machineId = newId('mch');
    try {
      await market.addMachine({
        id: machineId,
        providerAccountId: newId('acc'),
        name: 'rig',
        gpuName: 'RTX_4090',
        gpuCount: 1,
        vramGb: 24,
        cpuCores: 8,
        ramGb: 32,
        diskGb: 200,
        location: 'DE',
        pricePerGpuHourMicros: 500_000n,
        minGpus: 1,
        discountsBp: { day: 1000, week: 2000, month: 3000 },
        availableUntilMs: null,
        listed: true,
        verification: 'unverified',
        lastHeartbeatMs: Date.now(),
        reliabilityBp: 10_000,
        priceRise: null,
        createdAtMs: Date.now(),
      });
    } finally {
      await db.knex.destroy();
    }
    expect(ok(await admin('machines', 'verify', '--machine', machineId))).toEqual({
      machine_id: machineId,
      verification: 'verified',
    });
    expect(ok(await admin('machines', 'deverify', '--machine', machineId))).toEqual({
      machine_id: machineId,
      verification: 'deverified',
    });
    expect(failed(await admin('machines', 'verify', '--machine', 'mch_nope'), 1).error).toBe('machine_not_found');
    expect(failed(await admin('machines', 'verify'), 2).error).toBe('usage');
  });
});
