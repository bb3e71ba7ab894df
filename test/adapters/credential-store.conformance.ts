/**
 * The one behavioural contract of the credential-store port (src/adapters/credential-store/index.ts), run against
 * every implementation. One store per suite; every test makes its own accounts, emails, tokens and nonces.
 * The concurrency cases fire the calls together: on PostgreSQL they run on separate pooled connections.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CredentialStore } from '../../src/adapters/credential-store/index.js';
import { generateRecoveryCodes, recoveryCodeHash } from '../../src/domain/accounts/recovery-codes.js';
import { newId } from '../../src/lib/ids.js';
import { rotationCases, sessionCases } from './credential-store-sessions.conformance.js';

export interface StoreUnderTest {
  store: CredentialStore;
  cleanup: () => Promise<void>;
}

/** Realistic epoch milliseconds: above 2^31, so a 32-bit column or a BigInt left unconverted would show. */
export const T0 = 1_750_000_000_000;
const MINUTE = 60_000;
/** How many calls race in a concurrency case: exactly one may win. */
export const RACERS = 5;

export function credentialStoreConformance(name: string, makeStore: () => Promise<StoreUnderTest>): void {
  describe(`CredentialStore conformance: ${name}`, () => {
    let subject: StoreUnderTest;
    const store = () => subject.store;

    beforeAll(async () => {
      subject = await makeStore();
    });
    afterAll(async () => {
      await subject?.cleanup();
    });

    async function login() {
      const accountId = newId('acc');
      const email = `${newId('u')}@example.com`.toLowerCase();
      const outcome = await store().createLogin({ accountId, email, passwordHash: 'scrypt$opaque', createdAtMs: T0 });
      if (!outcome.ok) throw new Error('fixture login not created');
      return outcome.login;
    }

    loginCases(store, login);
    secondFactorCases(store, login);
    nonceCases(store);
    sessionCases(store, login);
    rotationCases(store, login);
  });
}

export type Store = () => CredentialStore;
export type MakeLogin = () => Promise<{ accountId: string; email: string }>;

function loginCases(store: Store, login: MakeLogin): void {
  describe('logins', () => {
    it('creates a login, unconfirmed and without a second factor, found by email and by account', async () => {
      const { accountId, email } = await login();
      const byEmail = await store().findLoginByEmail(email);
      expect(byEmail).toEqual({
        accountId,
        email,
        passwordHash: 'scrypt$opaque',
        emailConfirmedAtMs: null,
        totpSecret: null,
        totpLastStep: null,
        recoveryCodeHashes: [],
        createdAtMs: T0,
        updatedAtMs: T0,
      });
      expect(await store().findLoginByAccount(accountId)).toEqual(byEmail);
      expect(await store().findLoginByEmail('nobody@example.com')).toBeNull();
      expect(await store().findLoginByAccount(newId('acc'))).toBeNull();
    });

    it("answers 'email_taken' for an address another login holds", async () => {
      const { email } = await login();
      const again = { accountId: newId('acc'), email, passwordHash: 'x', createdAtMs: T0 };
      expect(await store().createLogin(again)).toEqual({ ok: false, reason: 'email_taken' });
      expect(await store().findLoginByAccount(again.accountId)).toBeNull();
    });

    it('sets the password hash and keeps the first confirmation time', async () => {
      const { accountId } = await login();
      expect(await store().setPasswordHash(accountId, 'scrypt$new', T0 + 1)).toBe(true);
      expect(await store().confirmEmail(accountId, T0 + 2)).toBe(true);
      expect(await store().confirmEmail(accountId, T0 + 3)).toBe(true);
      const found = await store().findLoginByAccount(accountId);
      expect(found).toMatchObject({ passwordHash: 'scrypt$new', emailConfirmedAtMs: T0 + 2, updatedAtMs: T0 + 3 });
      expect(await store().setPasswordHash(newId('acc'), 'x', T0)).toBe(false);
      expect(await store().confirmEmail(newId('acc'), T0)).toBe(false);
    });

    it('moves a login to a new address, confirmed then, unless another login holds it', async () => {
      const first = await login();
      const second = await login();
      const fresh = `${newId('moved')}@example.com`.toLowerCase();
      expect(await store().setLoginEmail(first.accountId, second.email, T0 + 1)).toEqual({
        ok: false,
        reason: 'email_taken',
      });
      expect(await store().setLoginEmail(first.accountId, fresh, T0 + 2)).toEqual({ ok: true });
      expect(await store().findLoginByEmail(first.email)).toBeNull();
      expect(await store().findLoginByEmail(fresh)).toMatchObject({
        accountId: first.accountId,
        emailConfirmedAtMs: T0 + 2,
      });
      expect(await store().setLoginEmail(newId('acc'), `${newId('x')}@example.com`, T0)).toEqual({
        ok: false,
        reason: 'no_login',
      });
    });

    it('deletes a login with its sessions, freeing the address', async () => {
      const { accountId, email } = await login();
      const session = await store().createSession({
        id: newId('ses'),
        accountId,
        familyId: newId('fam'),
        accessHash: newId('ah'),
        refreshHash: newId('rh'),
        accessExpiresAtMs: T0 + 60_000,
        refreshExpiresAtMs: T0 + 120_000,
        createdAtMs: T0,
        userAgent: null,
        ip: null,
      });
      expect(await store().deleteLogin(accountId)).toBe(true);
      expect(await store().findLoginByEmail(email)).toBeNull();
      expect(await store().findSessionByAccessHash(session.accessHash, T0)).toBeNull();
      expect(await store().deleteLogin(accountId)).toBe(false);
      const again = { accountId: newId('acc'), email, passwordHash: 'x', createdAtMs: T0 };
      expect((await store().createLogin(again)).ok).toBe(true);
    });
  });
}

function secondFactorCases(store: Store, login: MakeLogin): void {
  describe('TOTP and recovery codes', () => {
    it('records a TOTP step only when it is after the last one, and only with a secret', async () => {
      const { accountId } = await login();
      expect(await store().recordTotpStep(accountId, 100)).toBe(false);
      expect(await store().setTotp(accountId, 'JBSWY3DPEHPK3PXP', T0 + 1)).toBe(true);
      expect(await store().recordTotpStep(accountId, 100)).toBe(true);
      expect(await store().recordTotpStep(accountId, 100)).toBe(false);
      expect(await store().recordTotpStep(accountId, 99)).toBe(false);
      expect(await store().recordTotpStep(accountId, 58_333_334)).toBe(true);
      expect(await store().findLoginByAccount(accountId)).toMatchObject({
        totpSecret: 'JBSWY3DPEHPK3PXP',
        totpLastStep: 58_333_334,
      });
    });

    it('accepts one of two concurrent recordings of the same step', async () => {
      const { accountId } = await login();
      await store().setTotp(accountId, 'JBSWY3DPEHPK3PXP', T0);
      const results = await Promise.all(Array.from({ length: RACERS }, () => store().recordTotpStep(accountId, 7)));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('replaces recovery codes, consumes each once, and clears them with the secret', async () => {
      const { accountId } = await login();
      const hashes = generateRecoveryCodes().map(recoveryCodeHash);
      await store().replaceRecoveryCodes(accountId, hashes, T0 + 1);
      expect((await store().findLoginByAccount(accountId))?.recoveryCodeHashes).toEqual([...hashes].sort());
      expect(await store().consumeRecoveryCode(accountId, hashes[0]!)).toBe(true);
      expect(await store().consumeRecoveryCode(accountId, hashes[0]!)).toBe(false);
      expect(await store().consumeRecoveryCode(newId('acc'), hashes[1]!)).toBe(false);
      const fresh = generateRecoveryCodes().map(recoveryCodeHash);
      await store().replaceRecoveryCodes(accountId, fresh, T0 + 2);
      expect(await store().consumeRecoveryCode(accountId, hashes[1]!)).toBe(false);
      expect((await store().findLoginByAccount(accountId))?.recoveryCodeHashes).toEqual([...fresh].sort());

      await store().setTotp(accountId, 'JBSWY3DPEHPK3PXP', T0 + 3);
      await store().recordTotpStep(accountId, 5);
      expect(await store().clearTotp(accountId, T0 + 4)).toBe(true);
      const cleared = await store().findLoginByAccount(accountId);
      expect(cleared).toMatchObject({ totpSecret: null, totpLastStep: null, recoveryCodeHashes: [] });
      expect(await store().clearTotp(newId('acc'), T0)).toBe(false);
    });

    it('lets exactly one of concurrent consumptions of one recovery code succeed', async () => {
      const { accountId } = await login();
      const [hash] = generateRecoveryCodes().map(recoveryCodeHash);
      await store().replaceRecoveryCodes(accountId, [hash!], T0);
      const results = await Promise.all(
        Array.from({ length: RACERS }, () => store().consumeRecoveryCode(accountId, hash!)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
    });
  });
}

function nonceCases(store: Store): void {
  describe('used link nonces', () => {
    it('marks a nonce used once, and concurrent marks answer true exactly once', async () => {
      const nonce = newId('n');
      expect(await store().markNonceUsed(nonce, 'confirm_email', T0 + MINUTE)).toBe(true);
      expect(await store().markNonceUsed(nonce, 'reset_password', T0 + MINUTE)).toBe(false);
      const racing = newId('n');
      const results = await Promise.all(
        Array.from({ length: RACERS }, () => store().markNonceUsed(racing, 'reset_password', T0 + MINUTE)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('sweeps the nonces whose link expired', async () => {
      const far = 4_000_000_000_000; // later than any other test's nonces, so the count is this test's alone
      const [old, recent] = [newId('n'), newId('n')];
      await store().markNonceUsed(old, 'confirm_email', far);
      await store().markNonceUsed(recent, 'confirm_email', far + MINUTE);
      expect(await store().sweepExpiredNonces(far)).toBeGreaterThanOrEqual(1);
      expect(await store().markNonceUsed(old, 'confirm_email', far)).toBe(true);
      expect(await store().markNonceUsed(recent, 'confirm_email', far + MINUTE)).toBe(false);
    });
  });
}
