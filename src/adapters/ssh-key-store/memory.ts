import type { SshKeyRecord, SshKeyStore } from './index.js';

/** The in-memory twin of the SSH key store. */
export class MemorySshKeyStore implements SshKeyStore {
  private readonly keys = new Map<string, SshKeyRecord>();

  async add(key: SshKeyRecord): Promise<SshKeyRecord> {
    const same = [...this.keys.values()].find(
      (k) => k.accountId === key.accountId && k.fingerprint === key.fingerprint,
    );
    if (same !== undefined) return { ...same };
    this.keys.set(key.id, { ...key });
    return { ...key };
  }

  async list(accountId: string): Promise<SshKeyRecord[]> {
    return [...this.keys.values()]
      .filter((k) => k.accountId === accountId)
      .sort((a, b) => a.createdAtMs - b.createdAtMs || a.id.localeCompare(b.id));
  }

  async remove(accountId: string, id: string): Promise<boolean> {
    const key = this.keys.get(id);
    return key !== undefined && key.accountId === accountId && this.keys.delete(id);
  }
}
