/** The one behavioural contract of the ssh-key-store port, run against every implementation. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SshKeyRecord, SshKeyStore } from '../../src/adapters/ssh-key-store/index.js';
import { newId } from '../../src/lib/ids.js';

export function sshKeyStoreConformance(
  name: string,
  make: () => Promise<{ store: SshKeyStore; cleanup(): Promise<void> }>,
): void {
  describe(`SshKeyStore conformance: ${name}`, () => {
    let subject: { store: SshKeyStore; cleanup(): Promise<void> } | undefined;
    const store = (): SshKeyStore => subject!.store;
    beforeAll(async () => {
      subject = await make();
    });
    afterAll(async () => {
      await subject?.cleanup();
    });
    const key = (accountId: string, fingerprint: string, createdAtMs: number): SshKeyRecord => ({
      id: newId('sshk'),
      accountId,
      name: 'laptop',
      publicKey: `ssh-ed25519 AAAA ${fingerprint}`,
      fingerprint,
      createdAtMs,
    });

    it('adds keys, answers the existing one for a fingerprint the account has, lists oldest first, removes only the account’s own', async () => {
      const [a, b] = [newId('acc'), newId('acc')];
      const first = key(a, 'SHA256:one', 1);
      expect(await store().add(first)).toEqual(first);
      expect(await store().add({ ...key(a, 'SHA256:one', 5), name: 'again' })).toEqual(first);
      const second = key(a, 'SHA256:two', 2);
      await store().add(second);
      const theirs = key(b, 'SHA256:one', 3);
      expect(await store().add(theirs)).toEqual(theirs);
      expect((await store().list(a)).map((k) => k.id)).toEqual([first.id, second.id]);
      expect(await store().remove(b, first.id)).toBe(false);
      expect(await store().remove(a, first.id)).toBe(true);
      expect(await store().remove(a, first.id)).toBe(false);
      expect((await store().list(a)).map((k) => k.id)).toEqual([second.id]);
    });
  });
}
