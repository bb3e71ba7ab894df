/**
 * The operator's account commands of the admin CLI (issue 26 item 8): `accounts show`, `accounts lock/unlock` and
 * `accounts sessions revoke`, run as operators run them (test/setup/admin-cli.ts) on a temporary SQLite file whose
 * sign-in records are written through the credential store, as the sign-in handlers write them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlApiKeyStore } from '../../src/adapters/api-keys/sql.js';
import { SqlCredentialStore } from '../../src/adapters/credential-store/sql.js';
import { connectDatabase, type Database } from '../../src/db/connect.js';
import { hashApiKey } from '../../src/domain/keys/api-key-secret.js';
import { newId } from '../../src/lib/ids.js';
import { failed, ok, runAdmin } from '../setup/admin-cli.js';

const HOUR_MS = 3_600_000;
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/);

describe('admin CLI: accounts show, lock, unlock, sessions revoke', { timeout: 30_000 }, () => {
  let dir: string;
  let databaseUrl: string;
  let db: Database;
  const admin = (...args: string[]) => runAdmin(databaseUrl, ...args);
  let account: { id: string; apiKey: string; keyId: string };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cgw-admin-accounts-'));
    databaseUrl = `sqlite:${join(dir, 'gateway.sqlite')}`;
    // The CLI's first run creates the schema; the test then writes sign-in records beside it.
    const created = ok(await admin('accounts', 'create', '--email', 'Person@Example.com', '--balance-usd', '12.5'));
    account = { id: created.account_id as string, apiKey: created.api_key as string, keyId: created.key_id as string };
    db = connectDatabase(databaseUrl);
  });
  afterAll(async () => {
    await db?.knex.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  async function signInTwice(): Promise<void> {
    const credentials = new SqlCredentialStore(db);
    const nowMs = Date.now();
    await credentials.createLogin({
      accountId: account.id,
      email: 'person@example.com',
      passwordHash: 'h',
      createdAtMs: nowMs,
    });
    await credentials.confirmEmail(account.id, nowMs);
    await credentials.setTotp(account.id, 'JBSWY3DPEHPK3PXP', nowMs);
    for (let i = 0; i < 2; i += 1)
      await credentials.createSession({
        id: newId('ses'),
        accountId: account.id,
        familyId: newId('fam'),
        accessHash: newId('a'),
        refreshHash: newId('r'),
        accessExpiresAtMs: nowMs + HOUR_MS,
        refreshExpiresAtMs: nowMs + 24 * HOUR_MS,
        createdAtMs: nowMs,
        userAgent: null,
        ip: null,
      });
  }

  it('accounts show: the account, its balance, its keys (hints, revoked or not), no login yet, unlocked', async () => {
    ok(await admin('keys', 'revoke', '--key-id', account.keyId));
    const second = ok(await admin('keys', 'create', '--account', account.id, '--name', 'ci'));
    const shown = ok(await admin('accounts', 'show', '--account', account.id));
    expect(shown).toEqual({
      account_id: account.id,
      email: 'person@example.com',
      created_at: ISO,
      balance_usd: 12.5,
      held_usd: 0,
      locked: false,
      locked_at: null,
      lock_reason: null,
      discount_percent: 0,
      tier_discounts: {},
      requests_per_minute: null,
      keys: [
        {
          key_id: second.key_id,
          name: 'ci',
          hint: expect.stringMatching(/^cgw_/),
          created_at: ISO,
          last_used_at: null,
          revoked: false,
          revoked_at: null,
        },
        {
          key_id: account.keyId,
          name: 'default',
          hint: expect.stringMatching(/^cgw_/),
          created_at: ISO,
          last_used_at: null,
          revoked: true,
          revoked_at: ISO,
        },
      ],
      login: null,
    });
    // Never a secret: the hint only.
    expect(JSON.stringify(shown)).not.toContain(account.apiKey);
    // By email, however it is typed, it is the same account.
    expect(ok(await admin('accounts', 'show', '--account', ' PERSON@example.COM'))).toEqual(shown);
  });

  it('accounts show: the sign-in state; sessions revoke signs out everywhere, once', async () => {
    await signInTwice();
    const login = async () => ok(await admin('accounts', 'show', '--account', 'person@example.com')).login;
    expect(await login()).toEqual({ email_confirmed: true, email_confirmed_at: ISO, totp: true, live_sessions: 2 });
    expect(ok(await admin('accounts', 'sessions', 'revoke', '--account', 'person@example.com'))).toEqual({
      account_id: account.id,
      sessions_revoked: 2,
    });
    expect(await login()).toMatchObject({ live_sessions: 0 });
    expect(ok(await admin('accounts', 'sessions', 'revoke', '--account', account.id))).toMatchObject({
      sessions_revoked: 0,
    });
  });

  it('accounts lock: the reason is kept, a repeat keeps the first lock, the keys resolve locked; unlock undoes it', async () => {
    const locked = ok(await admin('accounts', 'lock', '--account', account.id, '--reason', 'card chargeback'));
    expect(locked).toEqual({ account_id: account.id, locked: true, locked_at: ISO, lock_reason: 'card chargeback' });
    expect(ok(await admin('accounts', 'lock', '--account', 'person@example.com', '--reason', 'again'))).toEqual(locked);
    expect(ok(await admin('accounts', 'show', '--account', account.id))).toMatchObject({
      locked: true,
      locked_at: locked.locked_at,
      lock_reason: 'card chargeback',
    });
    // What the authenticator reads: the key's account, locked.
    const resolved = await new SqlApiKeyStore(db).resolveKey(hashApiKey(account.apiKey));
    expect(resolved?.account?.lockedAtMs).toBe(Date.parse(locked.locked_at as string));
    expect(ok(await admin('accounts', 'unlock', '--account', account.id))).toEqual({
      account_id: account.id,
      locked: false,
      locked_at: null,
      lock_reason: null,
    });
    expect((await new SqlApiKeyStore(db).resolveKey(hashApiKey(account.apiKey)))?.account?.lockedAtMs).toBeNull();
  });

  it('names an unknown account (id or email) account_not_found, exit 1', async () => {
    for (const args of [
      ['accounts', 'show', '--account', 'acc_missing'],
      ['accounts', 'show', '--account', 'nobody@example.com'],
      ['accounts', 'lock', '--account', 'nobody@example.com', '--reason', 'x'],
      ['accounts', 'unlock', '--account', 'acc_missing'],
      ['accounts', 'sessions', 'revoke', '--account', 'acc_missing'],
    ])
      expect(failed(await admin(...args), 1).error).toBe('account_not_found');
  });

  it('a lock without a reason, or a show without an account, is a usage error (exit 2)', async () => {
    expect(failed(await admin('accounts', 'lock', '--account', account.id), 2).error).toBe('usage');
    expect(failed(await admin('accounts', 'lock', '--account', account.id, '--reason', '  '), 2).error).toBe('usage');
    expect(failed(await admin('accounts', 'show'), 2).error).toBe('usage');
    expect(failed(await admin('accounts', 'sessions', 'revoke', account.id), 2).error).toBe('usage');
  });

  it('--help names the new commands, and the usage of a three-word one', async () => {
    const help = await admin('--help');
    expect(help.code).toBe(0);
    for (const usage of [
      'accounts show --account',
      'accounts lock --account',
      'accounts unlock',
      'accounts sessions revoke',
    ])
      expect(help.stdout).toContain(usage);
    expect((await admin('accounts', 'sessions', 'revoke', '--help')).stdout).toBe(
      'usage: npm run --silent admin -- accounts sessions revoke --account ACCOUNT_ID|EMAIL\n',
    );
  });

  it('accounts delete takes the sign-in with it: the login and its sessions go, the address is free', async () => {
    const credentials = new SqlCredentialStore(db);
    expect(await credentials.findLoginByAccount(account.id)).not.toBeNull();
    ok(await admin('accounts', 'delete', '--account', account.id));
    expect(await credentials.findLoginByAccount(account.id)).toBeNull();
    expect(await credentials.findLoginByEmail('person@example.com')).toBeNull();
  });
});
