/** The ssh-key-store port: an account's SSH public keys (settings), one per fingerprint. */

export interface SshKeyRecord {
  id: string;
  accountId: string;
  name: string;
  /** The OpenSSH line as given (`ssh-ed25519 AAAA… comment`), trimmed. */
  publicKey: string;
  /** `SHA256:<base64>`, as `ssh-keygen -l` prints it. */
  fingerprint: string;
  createdAtMs: number;
}

export interface SshKeyStore {
  /** Adds the key, or answers the account's key with the same fingerprint (adding it again changes nothing). */
  add(key: SshKeyRecord): Promise<SshKeyRecord>;
  list(accountId: string): Promise<SshKeyRecord[]>;
  /** False when the account has no such key. */
  remove(accountId: string, id: string): Promise<boolean>;
}
