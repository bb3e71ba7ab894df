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

const copyLogin = (l: LoginRecord): LoginRecord => ({ ...l, recoveryCodeHashes: [...l.recoveryCodeHashes] });
const copySession = (s: SessionRecord): SessionRecord => ({ ...s });
const isLive = (s: SessionRecord) => s.revokedAtMs === null && s.rotatedAtMs === null;

/** Same order as the SQL store: newest first, ties broken by id descending so both twins agree. */
function newestFirst(a: SessionRecord, b: SessionRecord): number {
  if (a.createdAtMs !== b.createdAtMs) return b.createdAtMs - a.createdAtMs;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/**
 * In-process twin of the SQL store. Every operation runs to its end without awaiting, so the compare-and-sets are
 * atomic here as the SQL store's are across processes. Records are copied in and out.
 */
export class MemoryCredentialStore implements CredentialStore {
  private readonly logins = new Map<string, LoginRecord>();
  private readonly accountIdByEmail = new Map<string, string>();
  private readonly nonces = new Map<string, number>();
  private readonly sessions = new Map<string, SessionRecord>();

  async createLogin(input: NewLogin): Promise<CreateLoginOutcome> {
    if (this.accountIdByEmail.has(input.email)) return { ok: false, reason: 'email_taken' };
    // A second login for one account is a bug in the caller: the SQL store throws on it as well.
    if (this.logins.has(input.accountId)) throw new Error(`account ${input.accountId} already has a login`);
    const login: LoginRecord = {
      ...input,
      emailConfirmedAtMs: null,
      totpSecret: null,
      totpLastStep: null,
      recoveryCodeHashes: [],
      updatedAtMs: input.createdAtMs,
    };
    this.logins.set(login.accountId, login);
    this.accountIdByEmail.set(login.email, login.accountId);
    return { ok: true, login: copyLogin(login) };
  }

  async findLoginByEmail(email: string): Promise<LoginRecord | null> {
    const accountId = this.accountIdByEmail.get(email);
    return accountId === undefined ? null : this.findLoginByAccount(accountId);
  }

  async findLoginByAccount(accountId: string): Promise<LoginRecord | null> {
    const login = this.logins.get(accountId);
    return login ? copyLogin(login) : null;
  }

  /** Applies `change` to the account's login and stamps it; false when there is none. */
  private update(accountId: string, atMs: number, change: (login: LoginRecord) => void): boolean {
    const login = this.logins.get(accountId);
    if (!login) return false;
    change(login);
    login.updatedAtMs = atMs;
    return true;
  }

  async setLoginEmail(accountId: string, email: string, atMs: number): Promise<SetEmailOutcome> {
    const login = this.logins.get(accountId);
    if (!login) return { ok: false, reason: 'no_login' };
    const holder = this.accountIdByEmail.get(email);
    if (holder !== undefined && holder !== accountId) return { ok: false, reason: 'email_taken' };
    this.accountIdByEmail.delete(login.email);
    this.accountIdByEmail.set(email, accountId);
    this.update(accountId, atMs, (l) => {
      l.email = email;
      l.emailConfirmedAtMs = atMs;
    });
    return { ok: true };
  }

  async deleteLogin(accountId: string): Promise<boolean> {
    const login = this.logins.get(accountId);
    if (!login) return false;
    this.logins.delete(accountId);
    this.accountIdByEmail.delete(login.email);
    for (const [id, s] of this.sessions) if (s.accountId === accountId) this.sessions.delete(id);
    return true;
  }

  async setPasswordHash(accountId: string, passwordHash: string, atMs: number): Promise<boolean> {
    return this.update(accountId, atMs, (l) => {
      l.passwordHash = passwordHash;
    });
  }

  async confirmEmail(accountId: string, atMs: number): Promise<boolean> {
    return this.update(accountId, atMs, (l) => {
      l.emailConfirmedAtMs ??= atMs;
    });
  }

  async setTotp(accountId: string, secretBase32: string, atMs: number): Promise<boolean> {
    return this.update(accountId, atMs, (l) => {
      l.totpSecret = secretBase32;
      l.totpLastStep = null;
    });
  }

  async clearTotp(accountId: string, atMs: number): Promise<boolean> {
    return this.update(accountId, atMs, (l) => {
      l.totpSecret = null;
      l.totpLastStep = null;
      l.recoveryCodeHashes = [];
    });
  }

  async recordTotpStep(accountId: string, step: number): Promise<boolean> {
    const login = this.logins.get(accountId);
    if (!login || login.totpSecret === null) return false;
    if (login.totpLastStep !== null && login.totpLastStep >= step) return false;
    login.totpLastStep = step;
    return true;
  }

  async replaceRecoveryCodes(accountId: string, codeHashes: readonly string[], atMs: number): Promise<void> {
    this.update(accountId, atMs, (l) => {
      l.recoveryCodeHashes = [...new Set(codeHashes)].sort(); // the SQL store answers them in this order
    });
  }

  async consumeRecoveryCode(accountId: string, codeHash: string): Promise<boolean> {
    const login = this.logins.get(accountId);
    if (!login?.recoveryCodeHashes.includes(codeHash)) return false;
    login.recoveryCodeHashes = login.recoveryCodeHashes.filter((h) => h !== codeHash);
    return true;
  }

  async markNonceUsed(nonce: string, _purpose: LinkNoncePurpose, expiresAtMs: number): Promise<boolean> {
    if (this.nonces.has(nonce)) return false;
    this.nonces.set(nonce, expiresAtMs);
    return true;
  }

  async sweepExpiredNonces(nowMs: number): Promise<number> {
    let swept = 0;
    for (const [nonce, expiresAtMs] of this.nonces) if (expiresAtMs <= nowMs && this.nonces.delete(nonce)) swept += 1;
    return swept;
  }

  async createSession(input: NewSession): Promise<SessionRecord> {
    return copySession(this.insertSession(input));
  }

  /** Synchronous, so rotateSession checks and inserts with no await in between. */
  private insertSession(input: NewSession): SessionRecord {
    if (this.sessions.has(input.id)) throw new Error(`session id ${input.id} already exists`);
    for (const s of this.sessions.values())
      if (s.accessHash === input.accessHash || s.refreshHash === input.refreshHash)
        throw new Error('session token hash already exists');
    const session: SessionRecord = { ...input, lastUsedAtMs: input.createdAtMs, rotatedAtMs: null, revokedAtMs: null };
    this.sessions.set(session.id, session);
    return session;
  }

  private byHash(field: 'accessHash' | 'refreshHash', hash: string): SessionRecord | undefined {
    for (const s of this.sessions.values()) if (s[field] === hash) return s;
    return undefined;
  }

  async findSessionByAccessHash(accessHash: string, nowMs: number): Promise<SessionRecord | null> {
    const session = this.byHash('accessHash', accessHash);
    return session && isLive(session) && session.accessExpiresAtMs > nowMs ? copySession(session) : null;
  }

  async findSessionByRefreshHash(refreshHash: string): Promise<SessionRecord | null> {
    const session = this.byHash('refreshHash', refreshHash);
    return session ? copySession(session) : null;
  }

  async rotateSession(refreshHash: string, next: RotatedSession, atMs: number): Promise<RotateOutcome> {
    const old = this.byHash('refreshHash', refreshHash);
    if (!old) return { ok: false, reason: 'unknown' };
    if (old.revokedAtMs !== null) return { ok: false, reason: 'revoked' };
    if (old.rotatedAtMs !== null) return { ok: false, reason: 'already_rotated' };
    const session = this.insertSession({ ...next, accountId: old.accountId, familyId: old.familyId });
    old.rotatedAtMs = atMs;
    return { ok: true, session: copySession(session) };
  }

  async touchSession(sessionId: string, atMs: number): Promise<void> {
    const session = this.sessions.get(sessionId);
    if (session && session.lastUsedAtMs < atMs) session.lastUsedAtMs = atMs;
  }

  /** Revokes the matching sessions not revoked yet; answers how many. */
  private revokeWhere(atMs: number, matches: (s: SessionRecord) => boolean): number {
    let revoked = 0;
    for (const s of this.sessions.values()) {
      if (s.revokedAtMs !== null || !matches(s)) continue;
      s.revokedAtMs = atMs;
      revoked += 1;
    }
    return revoked;
  }

  async revokeSession(sessionId: string, atMs: number): Promise<boolean> {
    return this.revokeWhere(atMs, (s) => s.id === sessionId) > 0;
  }

  async revokeFamily(familyId: string, atMs: number): Promise<number> {
    return this.revokeWhere(atMs, (s) => s.familyId === familyId);
  }

  async revokeAccountSessions(accountId: string, atMs: number, exceptSessionId?: string): Promise<number> {
    return this.revokeWhere(
      atMs,
      (s) => s.accountId === accountId && s.id !== exceptSessionId && isLive(s) && s.refreshExpiresAtMs > atMs,
    );
  }

  async listLiveSessions(accountId: string, nowMs: number): Promise<SessionRecord[]> {
    return [...this.sessions.values()]
      .filter((s) => s.accountId === accountId && isLive(s) && s.refreshExpiresAtMs > nowMs)
      .map(copySession)
      .sort(newestFirst);
  }

  async sweepExpiredSessions(nowMs: number): Promise<number> {
    let swept = 0;
    for (const [id, s] of this.sessions) if (s.refreshExpiresAtMs <= nowMs && this.sessions.delete(id)) swept += 1;
    return swept;
  }
}
