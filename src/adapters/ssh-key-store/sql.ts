import type { Knex } from 'knex';
import type { Database } from '../../db/connect.js';
import type { SshKeyRecord, SshKeyStore } from './index.js';

type Row = Record<string, unknown>;

const keyOf = (r: Row): SshKeyRecord => ({
  id: r.id as string,
  accountId: r.account_id as string,
  name: r.name as string,
  publicKey: r.public_key as string,
  fingerprint: r.fingerprint as string,
  createdAtMs: Number(r.created_at_ms),
});

/** The SSH key store over knex (migration 0015): a fingerprint is unique per account. */
export class SqlSshKeyStore implements SshKeyStore {
  private readonly knex: Knex;

  constructor(db: Database) {
    this.knex = db.knex;
  }

  async add(key: SshKeyRecord): Promise<SshKeyRecord> {
    await this.knex('ssh_keys')
      .insert({
        id: key.id,
        account_id: key.accountId,
        name: key.name,
        public_key: key.publicKey,
        fingerprint: key.fingerprint,
        created_at_ms: key.createdAtMs,
      })
      .onConflict(['account_id', 'fingerprint'])
      .ignore();
    return keyOf(
      (await this.knex('ssh_keys').where({ account_id: key.accountId, fingerprint: key.fingerprint }).first()) as Row,
    );
  }

  async list(accountId: string): Promise<SshKeyRecord[]> {
    return (
      (await this.knex('ssh_keys')
        .where({ account_id: accountId })
        .orderBy([{ column: 'created_at_ms' }, { column: 'id' }])) as Row[]
    ).map(keyOf);
  }

  async remove(accountId: string, id: string): Promise<boolean> {
    return (await this.knex('ssh_keys').where({ account_id: accountId, id }).delete()) > 0;
  }
}
