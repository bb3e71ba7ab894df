/**
 * Account SSH keys (settings; SPEC 4.5 "SSH-key settings"): OpenSSH public keys, checked and fingerprinted as
 * `ssh-keygen -l` does, handed to every rental's container when its agent creates it.
 */
import { createHash } from 'node:crypto';
import type { SshKeyRecord, SshKeyStore } from '../../adapters/ssh-key-store/index.js';
import { ApiError, invalidField } from '../../errors/api-error.js';
import { newId } from '../../lib/ids.js';
import type { Principal } from '../keys/authenticator.js';

const KEY_TYPES = new Set([
  'ssh-ed25519',
  'ssh-rsa',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'sk-ssh-ed25519@openssh.com',
  'sk-ecdsa-sha2-nistp256@openssh.com',
]);
const MAX_KEYS = 50;

/**
 * `type base64 [comment]`, whose blob is a key of that type (the SSH wire format starts with the type's name):
 * what sshd accepts in authorized_keys. Answers the SHA-256 fingerprint.
 */
export function fingerprintOf(publicKey: string): string {
  const [type, data] = publicKey.trim().split(/\s+/);
  const bad = (why: string) => invalidField(['body', 'public_key'], `not an OpenSSH public key: ${why}`);
  if (type === undefined || !KEY_TYPES.has(type)) throw bad(`the type must be one of ${[...KEY_TYPES].join(', ')}`);
  if (data === undefined || !/^[A-Za-z0-9+/]+={0,2}$/.test(data)) throw bad('the key data is not base64');
  const blob = Buffer.from(data, 'base64');
  const nameLength = blob.length >= 4 ? blob.readUInt32BE(0) : -1;
  if (nameLength !== type.length || blob.subarray(4, 4 + nameLength).toString('latin1') !== type)
    throw bad(`the key data is not a ${type} key`);
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

export class SshKeys {
  constructor(
    private readonly store: SshKeyStore,
    private readonly now: () => number,
  ) {}

  async add(principal: Principal, publicKey: string, name?: string): Promise<SshKeyRecord> {
    const fingerprint = fingerprintOf(publicKey);
    const line = publicKey.trim().split(/\s+/).slice(0, 3).join(' ');
    const existing = await this.store.list(principal.accountId);
    if (existing.length >= MAX_KEYS && !existing.some((k) => k.fingerprint === fingerprint))
      throw invalidField(['body', 'public_key'], `an account keeps at most ${MAX_KEYS} keys`);
    const comment = line.split(' ')[2];
    return this.store.add({
      id: newId('sshk'),
      accountId: principal.accountId,
      name: name ?? comment ?? fingerprint.slice(0, 20),
      publicKey: line,
      fingerprint,
      createdAtMs: this.now(),
    });
  }

  list(principal: Principal): Promise<SshKeyRecord[]> {
    return this.store.list(principal.accountId);
  }

  async remove(principal: Principal, id: string): Promise<void> {
    if (!(await this.store.remove(principal.accountId, id)))
      throw new ApiError('ssh_key_not_found', `No SSH key ${id}`, { notFound: true });
  }

  /** The lines a rental's container is given: its renter's keys now. */
  async authorizedKeys(accountId: string): Promise<string[]> {
    return (await this.store.list(accountId)).map((k) => k.publicKey);
  }
}
