import type { Knex } from 'knex';
import type { Database } from '../../db/connect.js';
import { isUniqueViolation } from '../../db/unique-violation.js';
import type {
  CreateLoginOutcome,
  CredentialStore,
  LinkNoncePurpose,
  LoginRecord,
  NewLogin,
  NewSession,
  RotatedSession,
  RotateOutcome,
  SessionRecord,
  SetEmailOutcome,
} from './index.js';
import { type LoginRow, type SessionRow, toLogin, toSession } from './sql-rows.js';

/**
 * The credential-store port over knex, on SQLite and PostgreSQL alike (the schema is migration 0028). Every
 * compare-and-set is one conditional UPDATE or DELETE (or a unique key): on PostgreSQL a concurrent second writer
 * waits for the row lock and then finds the condition false, on SQLite writers are serialised. The caller owns the
 * `Database`.
 */
export class SqlCredentialStore implements CredentialStore {
  private readonly knex: Knex;

  constructor(db: Database) {
    this.knex = db.knex;
  }

  async createLogin(input: NewLogin): Promise<CreateLoginOutcome> {
    const row: LoginRow = {
      account_id: input.accountId,
      email: input.email,
      password_hash: input.passwordHash,
      email_confirmed_at_ms: null,
      totp_secret: null,
      totp_last_step: null,
      created_at_ms: input.createdAtMs,
      updated_at_ms: input.createdAtMs,
    };
    try {
      await this.knex('logins').insert(row);
    } catch (err) {
      if (isUniqueViolation(err, 'logins_email_unique', 'logins.email')) return { ok: false, reason: 'email_taken' };
      throw err;
    }
    return { ok: true, login: toLogin(row, []) };
  }

  async findLoginByEmail(email: string): Promise<LoginRecord | null> {
    return this.loginWhere('email', email);
  }

  async findLoginByAccount(accountId: string): Promise<LoginRecord | null> {
    return this.loginWhere('account_id', accountId);
  }

  private async loginWhere(column: 'email' | 'account_id', value: string): Promise<LoginRecord | null> {
    const row = (await this.knex('logins').where(column, value).first()) as LoginRow | undefined;
    if (!row) return null;
    const codes = (await this.knex('login_recovery_codes')
      .select('code_hash')
      .where('account_id', row.account_id)
      .orderBy('code_hash')) as { code_hash: string }[];
    return toLogin(
      row,
      codes.map((c) => c.code_hash),
    );
  }

  private async updateLogin(
    accountId: string,
    atMs: number,
    changes: Record<string, unknown>,
    db: Knex = this.knex,
  ): Promise<boolean> {
    return (
      (await db('logins')
        .where('account_id', accountId)
        .update({ ...changes, updated_at_ms: atMs })) > 0
    );
  }

  async setLoginEmail(accountId: string, email: string, atMs: number): Promise<SetEmailOutcome> {
    try {
      const changed = await this.updateLogin(accountId, atMs, { email, email_confirmed_at_ms: atMs });
      return changed ? { ok: true } : { ok: false, reason: 'no_login' };
    } catch (err) {
      if (isUniqueViolation(err, 'logins_email_unique', 'logins.email')) return { ok: false, reason: 'email_taken' };
      throw err;
    }
  }

  async deleteLogin(accountId: string): Promise<boolean> {
    return this.knex.transaction(async (trx) => {
      await trx('sessions').where('account_id', accountId).del();
      await trx('login_recovery_codes').where('account_id', accountId).del();
      return (await trx('logins').where('account_id', accountId).del()) > 0;
    });
  }

  async setPasswordHash(accountId: string, passwordHash: string, atMs: number): Promise<boolean> {
    return this.updateLogin(accountId, atMs, { password_hash: passwordHash });
  }

  async confirmEmail(accountId: string, atMs: number): Promise<boolean> {
    // The first confirmation time stays (coalesce), and the answer still says whether the login exists.
    return this.updateLogin(accountId, atMs, {
      email_confirmed_at_ms: this.knex.raw('coalesce(email_confirmed_at_ms, ?)', [atMs]),
    });
  }

  async setTotp(accountId: string, secretBase32: string, atMs: number): Promise<boolean> {
    return this.updateLogin(accountId, atMs, { totp_secret: secretBase32, totp_last_step: null });
  }

  async clearTotp(accountId: string, atMs: number): Promise<boolean> {
    return this.knex.transaction(async (trx) => {
      await trx('login_recovery_codes').where('account_id', accountId).del();
      return this.updateLogin(accountId, atMs, { totp_secret: null, totp_last_step: null }, trx);
    });
  }

  async recordTotpStep(accountId: string, step: number): Promise<boolean> {
    const changed = await this.knex('logins')
      .where('account_id', accountId)
      .whereNotNull('totp_secret')
      .andWhere((q) => q.whereNull('totp_last_step').orWhere('totp_last_step', '<', step))
      .update({ totp_last_step: step });
    return changed > 0;
  }

  async replaceRecoveryCodes(accountId: string, codeHashes: readonly string[], atMs: number): Promise<void> {
    await this.knex.transaction(async (trx) => {
      if (!(await this.updateLogin(accountId, atMs, {}, trx))) return;
      await trx('login_recovery_codes').where('account_id', accountId).del();
      const rows = [...new Set(codeHashes)].map((code_hash) => ({ account_id: accountId, code_hash }));
      if (rows.length > 0) await trx('login_recovery_codes').insert(rows);
    });
  }

  async consumeRecoveryCode(accountId: string, codeHash: string): Promise<boolean> {
    return (await this.knex('login_recovery_codes').where({ account_id: accountId, code_hash: codeHash }).del()) > 0;
  }

  async markNonceUsed(nonce: string, purpose: LinkNoncePurpose, expiresAtMs: number): Promise<boolean> {
    try {
      await this.knex('used_link_nonces').insert({ nonce, purpose, expires_at_ms: expiresAtMs });
      return true;
    } catch (err) {
      if (isUniqueViolation(err, 'used_link_nonces_pkey', 'used_link_nonces.nonce')) return false;
      throw err;
    }
  }

  async sweepExpiredNonces(nowMs: number): Promise<number> {
    return this.knex('used_link_nonces').where('expires_at_ms', '<=', nowMs).del();
  }

  async createSession(input: NewSession): Promise<SessionRecord> {
    return this.insertSession(input, this.knex);
  }

  private async insertSession(input: NewSession, db: Knex): Promise<SessionRecord> {
    const row: SessionRow = {
      id: input.id,
      account_id: input.accountId,
      family_id: input.familyId,
      access_hash: input.accessHash,
      refresh_hash: input.refreshHash,
      access_expires_at_ms: input.accessExpiresAtMs,
      refresh_expires_at_ms: input.refreshExpiresAtMs,
      created_at_ms: input.createdAtMs,
      last_used_at_ms: input.createdAtMs,
      user_agent: input.userAgent,
      ip: input.ip,
      rotated_at_ms: null,
      revoked_at_ms: null,
    };
    await db('sessions').insert(row);
    return toSession(row);
  }

  async findSessionByAccessHash(accessHash: string, nowMs: number): Promise<SessionRecord | null> {
    const row = (await this.knex('sessions')
      .where('access_hash', accessHash)
      .whereNull('revoked_at_ms')
      .whereNull('rotated_at_ms')
      .andWhere('access_expires_at_ms', '>', nowMs)
      .first()) as SessionRow | undefined;
    return row ? toSession(row) : null;
  }

  async findSessionByRefreshHash(refreshHash: string): Promise<SessionRecord | null> {
    const row = (await this.knex('sessions').where('refresh_hash', refreshHash).first()) as SessionRow | undefined;
    return row ? toSession(row) : null;
  }

  async rotateSession(refreshHash: string, next: RotatedSession, atMs: number): Promise<RotateOutcome> {
    return this.knex.transaction(async (trx) => {
      // The compare-and-set: of two concurrent rotations only one finds the row still unrotated.
      const won = await trx('sessions')
        .where('refresh_hash', refreshHash)
        .whereNull('rotated_at_ms')
        .whereNull('revoked_at_ms')
        .update({ rotated_at_ms: atMs });
      const old = (await trx('sessions').where('refresh_hash', refreshHash).first()) as SessionRow | undefined;
      if (!old) return { ok: false, reason: 'unknown' } as const;
      if (won === 0) return { ok: false, reason: old.revoked_at_ms === null ? 'already_rotated' : 'revoked' } as const;
      const session = await this.insertSession({ ...next, accountId: old.account_id, familyId: old.family_id }, trx);
      return { ok: true, session } as const;
    });
  }

  async touchSession(sessionId: string, atMs: number): Promise<void> {
    await this.knex('sessions').where('id', sessionId).andWhere('last_used_at_ms', '<', atMs).update({
      last_used_at_ms: atMs,
    });
  }

  async revokeSession(sessionId: string, atMs: number): Promise<boolean> {
    return (await this.revokeWhere(atMs, { id: sessionId })) > 0;
  }

  async revokeFamily(familyId: string, atMs: number): Promise<number> {
    return this.revokeWhere(atMs, { family_id: familyId });
  }

  async revokeAccountSessions(accountId: string, atMs: number, exceptSessionId?: string): Promise<number> {
    const query = this.knex('sessions')
      .where('account_id', accountId)
      .whereNull('revoked_at_ms')
      .whereNull('rotated_at_ms')
      .andWhere('refresh_expires_at_ms', '>', atMs);
    if (exceptSessionId !== undefined) query.whereNot('id', exceptSessionId);
    return query.update({ revoked_at_ms: atMs });
  }

  /** Revokes the matching sessions not revoked yet (the first revocation time stays); answers how many. */
  private async revokeWhere(atMs: number, match: Record<string, string>): Promise<number> {
    return this.knex('sessions').where(match).whereNull('revoked_at_ms').update({ revoked_at_ms: atMs });
  }

  async listLiveSessions(accountId: string, nowMs: number): Promise<SessionRecord[]> {
    const rows = (await this.knex('sessions')
      .where('account_id', accountId)
      .whereNull('revoked_at_ms')
      .whereNull('rotated_at_ms')
      .andWhere('refresh_expires_at_ms', '>', nowMs)
      .orderBy([
        { column: 'created_at_ms', order: 'desc' },
        { column: 'id', order: 'desc' }, // deterministic ties, same rule as the memory twin
      ])) as SessionRow[];
    return rows.map(toSession);
  }

  async sweepExpiredSessions(nowMs: number): Promise<number> {
    return this.knex('sessions').where('refresh_expires_at_ms', '<=', nowMs).del();
  }
}
