/**
 * The one behavioural contract of the api-keys port (src/adapters/api-keys/index.ts), run against every
 * implementation so the in-memory twin stays honest (DESIGN 1). One store per suite; every test makes its own
 * accounts with fresh ids and emails, so tests do not depend on each other.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiKeyStore, NewApiKey } from '../../src/adapters/api-keys/index.js';
import { displayHint, generateApiKey, hashApiKey } from '../../src/domain/keys/api-key-secret.js';
import { newId } from '../../src/lib/ids.js';

export interface StoreUnderTest {
  store: ApiKeyStore;
  cleanup: () => Promise<void>;
}

/** Realistic epoch milliseconds: above 2^31, so a 32-bit column or a BigInt left unconverted would show. */
const T0 = 1_750_000_000_000;

export function apiKeyStoreConformance(name: string, makeStore: () => Promise<StoreUnderTest>): void {
  describe(`ApiKeyStore conformance: ${name}`, () => {
    let subject: StoreUnderTest;
    const store = () => subject.store;

    beforeAll(async () => {
      subject = await makeStore();
    });
    afterAll(async () => {
      await subject?.store.close();
      await subject?.cleanup();
    });

    async function account(createdAtMs = T0) {
      const outcome = await store().createAccount({
        id: newId('acc'),
        email: `${newId('u')}@example.com`.toLowerCase(),
        createdAtMs,
      });
      if (!outcome.ok) throw new Error('fixture account not created');
      return outcome.account;
    }

    async function key(accountId: string, createdAtMs = T0, name = 'test', managesKeys = false) {
      const secret = generateApiKey();
      const input: NewApiKey = {
        id: newId('key'),
        accountId,
        name,
        hash: hashApiKey(secret),
        displayHint: displayHint(secret),
        createdAtMs,
        managesKeys,
      };
      return { record: await store().createKey(input), hash: input.hash };
    }

    describe('accounts', () => {
      it('creates an account with no discount and reads it back', async () => {
        const input = {
          id: newId('acc'),
          email: `fresh-${newId('e').toLowerCase()}@example.com`,
          createdAtMs: T0 + 1,
        };
        const outcome = await store().createAccount(input);
        const expected = {
          ...input,
          discountPercent: 0,
          tierDiscounts: {},
          rateLimitPerMinute: null,
          rubBilling: false,
          lockedAtMs: null,
          lockReason: null,
          debtMicros: 0n,
        };
        expect(outcome).toEqual({ ok: true, account: expected });
        expect(await store().getAccount(input.id)).toEqual(expected);
      });

      it('refuses a taken email and leaves the first account unchanged', async () => {
        const first = await account();
        const outcome = await store().createAccount({ id: newId('acc'), email: first.email, createdAtMs: T0 + 5 });
        expect(outcome).toEqual({ ok: false, reason: 'email_taken' });
        expect(await store().getAccount(first.id)).toEqual(first);
      });

      it('lets exactly one of two concurrent creations with the same email win', async () => {
        const email = `race-${newId('e')}@example.com`.toLowerCase();
        const outcomes = await Promise.all(
          [1, 2].map((n) => store().createAccount({ id: newId('acc'), email, createdAtMs: T0 + n })),
        );
        expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
        expect(outcomes.filter((o) => !o.ok)).toEqual([{ ok: false, reason: 'email_taken' }]);
      });

      it('finds an account by email and moves it to a free address only', async () => {
        const first = await account();
        const second = await account();
        expect(await store().findAccountByEmail(first.email)).toEqual(first);
        expect(await store().setAccountEmail(first.id, second.email)).toEqual({ ok: false, reason: 'email_taken' });
        const fresh = `moved-${newId('e').toLowerCase()}@example.com`;
        expect(await store().setAccountEmail(first.id, fresh)).toEqual({ ok: true });
        expect(await store().findAccountByEmail(first.email)).toBeNull();
        expect((await store().findAccountByEmail(fresh))?.id).toBe(first.id);
        expect(await store().setAccountEmail(newId('acc'), `${newId('e')}@example.com`)).toEqual({
          ok: false,
          reason: 'no_account',
        });
      });

      it('changes an account’s debt once per entry, never below zero, also when the same entry races', async () => {
        const { id } = await account();
        const entry = `debt:${newId('d')}`;
        const raced = await Promise.all(Array.from({ length: 5 }, () => store().changeDebt(id, entry, 7_000_000n, T0)));
        expect(raced).toEqual(Array(5).fill(7_000_000n));
        expect((await store().getAccount(id))?.debtMicros).toBe(7_000_000n);
        expect(await store().changeDebt(id, `repay:${newId('r')}`, -2_000_000n, T0)).toBe(5_000_000n);
        expect(await store().changeDebt(id, `repay:${newId('r')}`, -9_000_000n, T0)).toBe(0n);
        expect(await store().changeDebt(newId('acc'), entry, 1n, T0)).toBeNull();
      });

      it('answers null / false for unknown account ids', async () => {
        const unknown = newId('acc');
        expect(await store().getAccount(unknown)).toBeNull();
        expect(await store().deleteAccount(unknown)).toBe(false);
        expect(await store().setDiscounts(unknown, 10, {})).toBe(false);
      });

      it('round-trips discounts, fractional percents and tier maps included, replacing the old map', async () => {
        const a = await account();
        expect(await store().setDiscounts(a.id, 7.3, { premium: 12.5, basic: 0 })).toBe(true);
        expect(await store().getAccount(a.id)).toEqual({
          ...a,
          discountPercent: 7.3,
          tierDiscounts: { premium: 12.5, basic: 0 },
        });
        expect(await store().setDiscounts(a.id, 0, { video: 30 })).toBe(true);
        expect((await store().getAccount(a.id))?.tierDiscounts).toEqual({ video: 30 });
      });

      it('returns copies: mutating a returned record does not change the store', async () => {
        const a = await account();
        await store().setDiscounts(a.id, 5, { premium: 10 });
        const read = await store().getAccount(a.id);
        read!.tierDiscounts.premium = 99;
        read!.discountPercent = 99;
        expect(await store().getAccount(a.id)).toMatchObject({ discountPercent: 5, tierDiscounts: { premium: 10 } });
      });

      it('hard-deletes an account, keeps its keys, and frees the email', async () => {
        const a = await account();
        const { record } = await key(a.id);
        expect(await store().deleteAccount(a.id)).toBe(true);
        expect(await store().getAccount(a.id)).toBeNull();
        expect(await store().deleteAccount(a.id)).toBe(false);
        expect(await store().getKey(record.id)).toEqual(record);
        expect(await store().listKeys(a.id)).toEqual([record]);
        const again = await store().createAccount({ id: newId('acc'), email: a.email, createdAtMs: T0 + 9 });
        expect(again.ok).toBe(true);
      });
    });

    describe('keys', () => {
      it('creates a key with no use and no revocation, and reads it back with plain numbers', async () => {
        const a = await account();
        const { record } = await key(a.id, T0 + 42, 'ci');
        expect(record).toMatchObject({
          accountId: a.id,
          name: 'ci',
          createdAtMs: T0 + 42,
          lastUsedAtMs: null,
          revokedAtMs: null,
        });
        expect(record.displayHint).toMatch(/^cgw_.{4}….{4}$/);
        const read = await store().getKey(record.id);
        expect(read).toEqual(record);
        expect(typeof read!.createdAtMs).toBe('number');
      });

      it('keeps the keys scope as given, through every read (SQLite stores it as 0/1)', async () => {
        const a = await account();
        const manager = await key(a.id, T0, 'manager', true);
        const plain = await key(a.id, T0, 'plain', false);
        expect(manager.record.managesKeys).toBe(true);
        expect(plain.record.managesKeys).toBe(false);
        expect((await store().getKey(manager.record.id))?.managesKeys).toBe(true);
        expect((await store().resolveKey(plain.hash))?.key.managesKeys).toBe(false);
        expect((await store().resolveKey(manager.hash))?.key.managesKeys).toBe(true);
        expect((await store().listKeys(a.id)).map((k) => [k.name, k.managesKeys]).sort()).toEqual([
          ['manager', true],
          ['plain', false],
        ]);
        expect((await store().revokeKey(manager.record.id, T0 + 1))?.managesKeys).toBe(true);
      });

      it('answers null for unknown key ids and hashes', async () => {
        expect(await store().getKey(newId('key'))).toBeNull();
        expect(await store().revokeKey(newId('key'), T0)).toBeNull();
        expect(await store().resolveKey(hashApiKey(generateApiKey()))).toBeNull();
      });

      it('resolves a hash to the key and its current account', async () => {
        const a = await account();
        const { record, hash } = await key(a.id);
        await store().setDiscounts(a.id, 15, { premium: 20 });
        expect(await store().resolveKey(hash)).toEqual({
          key: record,
          account: { ...a, discountPercent: 15, tierDiscounts: { premium: 20 } },
        });
      });

      it('resolves a key of a hard-deleted account with account null (SPEC 5.4 user_not_found)', async () => {
        const a = await account();
        const { record, hash } = await key(a.id);
        await store().deleteAccount(a.id);
        expect(await store().resolveKey(hash)).toEqual({ key: record, account: null });
      });

      it('revokes idempotently, keeping the first revocation time, and still resolves the revoked key', async () => {
        const a = await account();
        const { record, hash } = await key(a.id);
        expect(await store().revokeKey(record.id, T0 + 100)).toEqual({ ...record, revokedAtMs: T0 + 100 });
        expect(await store().revokeKey(record.id, T0 + 200)).toEqual({ ...record, revokedAtMs: T0 + 100 });
        expect((await store().resolveKey(hash))?.key.revokedAtMs).toBe(T0 + 100);
      });

      it('lists one account’s keys newest first, revoked ones included', async () => {
        const a = await account();
        const other = await account();
        const oldest = await key(a.id, T0 + 1);
        const newest = await key(a.id, T0 + 3);
        const middle = await key(a.id, T0 + 2);
        await key(other.id, T0 + 4);
        const revoked = await store().revokeKey(middle.record.id, T0 + 10);
        expect(await store().listKeys(a.id)).toEqual([newest.record, revoked, oldest.record]);
        expect(await store().listKeys(newId('acc'))).toEqual([]);
      });

      it('moves last-used times only forward, in batches, ignoring unknown ids', async () => {
        const a = await account();
        const k1 = (await key(a.id)).record;
        const k2 = (await key(a.id)).record;
        await store().touchKeys(new Map());
        await store().touchKeys(
          new Map([
            [k1.id, T0 + 500],
            [k2.id, T0 + 700],
            [newId('key'), T0 + 900],
          ]),
        );
        await store().touchKeys(
          new Map([
            [k1.id, T0 + 400],
            [k2.id, T0 + 800],
          ]),
        ); // k1 older batch arrives late
        expect((await store().getKey(k1.id))?.lastUsedAtMs).toBe(T0 + 500);
        expect((await store().getKey(k2.id))?.lastUsedAtMs).toBe(T0 + 800);
        await store().touchKeys(new Map([[k1.id, T0 + 500]])); // equal: unchanged
        expect((await store().getKey(k1.id))?.lastUsedAtMs).toBe(T0 + 500);
      });
    });

    describe('limits and ruble billing', () => {
      it('starts with default limits and dollar billing, then changes only what the patch names', async () => {
        const a = await account();
        const fresh = await store().getAccount(a.id);
        expect(fresh).toMatchObject({ rateLimitPerMinute: null, rubBilling: false });
        expect(await store().updateAccountSettings(a.id, { rubBilling: true })).toBe(true);
        expect(await store().getAccount(a.id)).toMatchObject({ rateLimitPerMinute: null, rubBilling: true });
        expect(await store().updateAccountSettings(a.id, { rateLimitPerMinute: 1000 })).toBe(true);
        expect(await store().getAccount(a.id)).toMatchObject({ rateLimitPerMinute: 1000, rubBilling: true });
        expect(await store().updateAccountSettings(a.id, { rateLimitPerMinute: null, rubBilling: false })).toBe(true);
        expect(await store().getAccount(a.id)).toMatchObject({ rateLimitPerMinute: null, rubBilling: false });
        expect(await store().updateAccountSettings(newId('acc'), { rubBilling: true })).toBe(false);
      });

      it('sets and clears a key limit, visible through resolveKey with the account settings', async () => {
        const a = await account();
        const { record, hash } = await key(a.id);
        expect(record.rateLimitPerMinute).toBeNull();
        expect(await store().setKeyRateLimit(record.id, 30)).toBe(true);
        await store().updateAccountSettings(a.id, { rateLimitPerMinute: 90, rubBilling: true });
        const resolved = await store().resolveKey(hash);
        expect(resolved?.key.rateLimitPerMinute).toBe(30);
        expect(resolved?.account).toMatchObject({ rateLimitPerMinute: 90, rubBilling: true });
        expect(await store().setKeyRateLimit(record.id, null)).toBe(true);
        expect((await store().getKey(record.id))?.rateLimitPerMinute).toBeNull();
        expect(await store().setKeyRateLimit(newId('key'), 5)).toBe(false);
      });

      it('creates a key with its limits and changes only what a patch names, the largest spend limit exact', async () => {
        const a = await account();
        const big = 1_000_000_000_000_000n; // the contract's largest limit, $1,000,000,000, to the micro-dollar
        const { record, hash } = await key(a.id);
        expect(record.spendLimit).toBeNull();
        const limited = await store().updateKey(record.id, {
          name: 'bot',
          rateLimitPerMinute: 12,
          spendLimit: { amountMicros: big, period: 'week' },
        });
        expect(limited).toMatchObject({
          name: 'bot',
          rateLimitPerMinute: 12,
          spendLimit: { amountMicros: big, period: 'week' },
        });
        expect((await store().resolveKey(hash))?.key).toEqual(limited);
        const renamed = await store().updateKey(record.id, { name: 'bot-2' });
        expect(renamed).toEqual({ ...limited, name: 'bot-2' });
        expect(await store().updateKey(record.id, {})).toEqual(renamed);
        const cleared = await store().updateKey(record.id, { spendLimit: null, rateLimitPerMinute: null });
        expect(cleared).toMatchObject({ name: 'bot-2', rateLimitPerMinute: null, spendLimit: null });
        expect(await store().updateKey(newId('key'), { name: 'ghost' })).toBeNull();
        const secret = generateApiKey();
        const created = await store().createKey({
          id: newId('key'),
          accountId: a.id,
          name: 'capped',
          hash: hashApiKey(secret),
          displayHint: displayHint(secret),
          createdAtMs: T0,
          managesKeys: false,
          rateLimitPerMinute: 7,
          spendLimit: { amountMicros: 5_000_000n, period: 'day' },
        });
        expect(created).toMatchObject({
          rateLimitPerMinute: 7,
          spendLimit: { amountMicros: 5_000_000n, period: 'day' },
        });
        expect(await store().getKey(created.id)).toEqual(created);
      });
    });

    it('answers ping', async () => {
      await expect(store().ping()).resolves.toBeUndefined();
    });
  });
}
