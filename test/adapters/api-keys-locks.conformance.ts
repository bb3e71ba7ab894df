/**
 * The api-keys port's account locks and lookup by email (issue 26 item 8: `accounts show`, `accounts lock/unlock`),
 * beside apiKeyStoreConformance and run against the same implementations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayHint, generateApiKey, hashApiKey } from '../../src/domain/keys/api-key-secret.js';
import { newId } from '../../src/lib/ids.js';
import type { StoreUnderTest } from './api-keys.conformance.js';

const T0 = 1_750_000_000_000;

export function apiKeyLocksConformance(name: string, makeStore: () => Promise<StoreUnderTest>): void {
  describe(`ApiKeyStore locks: ${name}`, () => {
    let subject: StoreUnderTest;
    const store = () => subject.store;

    beforeAll(async () => {
      subject = await makeStore();
    });
    afterAll(async () => {
      await subject?.store.close();
      await subject?.cleanup();
    });

    async function account() {
      const email = `${newId('u')}@example.com`.toLowerCase();
      const outcome = await store().createAccount({ id: newId('acc'), email, createdAtMs: T0 });
      if (!outcome.ok) throw new Error('fixture account not created');
      return outcome.account;
    }

    it('finds an account by its stored email, and nothing for another', async () => {
      const a = await account();
      expect(await store().findAccountByEmail(a.email)).toEqual(a);
      expect(await store().findAccountByEmail(`nobody-${a.email}`)).toBeNull();
    });

    it('locks with a time and a reason, keeps the first lock on a repeat, and unlocks', async () => {
      const a = await account();
      const locked = await store().lockAccount(a.id, T0 + 10, 'chargeback');
      expect(locked).toEqual({ ...a, lockedAtMs: T0 + 10, lockReason: 'chargeback' });
      expect(await store().lockAccount(a.id, T0 + 20, 'second thoughts')).toEqual(locked);
      expect(await store().getAccount(a.id)).toEqual(locked);
      expect(await store().unlockAccount(a.id)).toEqual(a);
      expect(await store().unlockAccount(a.id)).toEqual(a);
      expect(await store().getAccount(a.id)).toEqual(a);
    });

    it('shows the lock through resolveKey, where the authenticator reads it', async () => {
      const a = await account();
      const secret = generateApiKey();
      const hash = hashApiKey(secret);
      await store().createKey({
        id: newId('key'),
        accountId: a.id,
        name: 'k',
        hash,
        displayHint: displayHint(secret),
        createdAtMs: T0,
        managesKeys: false,
      });
      await store().lockAccount(a.id, T0 + 1, 'abuse');
      expect((await store().resolveKey(hash))?.account).toMatchObject({ lockedAtMs: T0 + 1, lockReason: 'abuse' });
    });

    it('answers null for an unknown account, and locks no other', async () => {
      const bystander = await account();
      expect(await store().lockAccount(newId('acc'), T0, 'x')).toBeNull();
      expect(await store().unlockAccount(newId('acc'))).toBeNull();
      expect(await store().getAccount(bystander.id)).toEqual(bystander);
    });
  });
}
