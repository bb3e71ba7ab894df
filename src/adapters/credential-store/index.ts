/**
 * The credential-store port: what signing in needs beside the account (issue 26 items 1, 3, 4; DESIGN.md 10).
 * Records are keyed by the account id of the api-keys port (src/adapters/api-keys/), which keeps the account itself.
 *
 * Only what src/domain/accounts/ produces is kept: scrypt password hashes, SHA-256 hashes of session tokens and
 * recovery codes, used link nonces. Never a raw token or password; the TOTP secret is the one readable value, as the
 * server must compute codes from it (totp.ts). Every business result is a typed answer, never a throw.
 */

export interface LoginRecord {
  accountId: string;
  /** Lower-cased by the caller before it reaches the store, so the unique index is case-insensitive in effect. */
  email: string;
  /** passwords.ts's encoded scrypt hash, parameters included. */
  passwordHash: string;
  /** Null until the address was confirmed by its link. */
  emailConfirmedAtMs: number | null;
  /** Base32 TOTP secret; null while no second factor is set. */
  totpSecret: string | null;
  /** The last accepted RFC 6238 step; a code of this step or an earlier one is refused as reused. */
  totpLastStep: number | null;
  /** recoveryCodeHash of each unused recovery code. */
  recoveryCodeHashes: string[];
  createdAtMs: number;
  updatedAtMs: number;
}

export interface NewLogin {
  accountId: string;
  email: string;
  passwordHash: string;
  createdAtMs: number;
}

export type CreateLoginOutcome = { ok: true; login: LoginRecord } | { ok: false; reason: 'email_taken' };

export type SetEmailOutcome = { ok: true } | { ok: false; reason: 'email_taken' | 'no_login' };

export interface NewSession {
  id: string;
  accountId: string;
  /** Every session rotated from one sign-in shares it (refresh-rotation.ts). */
  familyId: string;
  accessHash: string;
  refreshHash: string;
  accessExpiresAtMs: number;
  refreshExpiresAtMs: number;
  createdAtMs: number;
  userAgent: string | null;
  ip: string | null;
}

/** A stored session: what it was created with, and what happened to it since. */
export interface SessionRecord extends NewSession {
  lastUsedAtMs: number;
  /** When this refresh token was exchanged for its successor; null while it is the newest of its family. */
  rotatedAtMs: number | null;
  revokedAtMs: number | null;
}

/** A rotation's successor: account and family come from the rotated session, so a refresh cannot change them. */
export type RotatedSession = Omit<NewSession, 'accountId' | 'familyId'>;

export type RotateOutcome =
  | { ok: true; session: SessionRecord }
  | { ok: false; reason: 'already_rotated' | 'revoked' | 'unknown' };

export type LinkNoncePurpose = 'confirm_email' | 'change_email' | 'reset_password';

export interface CredentialStore {
  /** 'email_taken' when another login holds the address. */
  createLogin(input: NewLogin): Promise<CreateLoginOutcome>;
  findLoginByEmail(email: string): Promise<LoginRecord | null>;
  findLoginByAccount(accountId: string): Promise<LoginRecord | null>;
  /**
   * The address followed a link sent to it: it becomes the login's, confirmed at `atMs`. 'email_taken' when another
   * login holds it; false-like 'no_login' when the account has none.
   */
  setLoginEmail(accountId: string, email: string, atMs: number): Promise<SetEmailOutcome>;
  /** The account is gone: its login, recovery codes and sessions go with it. False when it had no login. */
  deleteLogin(accountId: string): Promise<boolean>;
  /** False when the account has no login. */
  setPasswordHash(accountId: string, passwordHash: string, atMs: number): Promise<boolean>;
  /** Keeps the first confirmation time; false when the account has no login. */
  confirmEmail(accountId: string, atMs: number): Promise<boolean>;
  /** Sets a new secret; the last accepted step starts over. False when the account has no login. */
  setTotp(accountId: string, secretBase32: string, atMs: number): Promise<boolean>;
  /** Removes the secret, its last step and the recovery codes (they only stand in for the second factor). */
  clearTotp(accountId: string, atMs: number): Promise<boolean>;
  /**
   * Compare-and-set (RFC 6238 5.2): stores `step` only if a secret is set and `step` is after the last accepted one.
   * False means another call accepted this step or a later one first: the code must be refused.
   */
  recordTotpStep(accountId: string, step: number): Promise<boolean>;
  /** The account's recovery codes become exactly these hashes. */
  replaceRecoveryCodes(accountId: string, codeHashes: readonly string[], atMs: number): Promise<void>;
  /** Atomic single use: true for exactly one of any number of concurrent calls with the same hash. */
  consumeRecoveryCode(accountId: string, codeHash: string): Promise<boolean>;

  /** Single use of a signed link across processes: true the first time, false for any later (or concurrent) call. */
  markNonceUsed(nonce: string, purpose: LinkNoncePurpose, expiresAtMs: number): Promise<boolean>;
  /** Deletes nonces whose link expired at or before `nowMs` (the link itself is refused by then); answers how many. */
  sweepExpiredNonces(nowMs: number): Promise<number>;

  createSession(input: NewSession): Promise<SessionRecord>;
  /** Only a live session: not revoked, not rotated, access token not expired at `nowMs`. */
  findSessionByAccessHash(accessHash: string, nowMs: number): Promise<SessionRecord | null>;
  /** Whatever its state, so the caller can apply decideRefresh (refresh-rotation.ts). */
  findSessionByRefreshHash(refreshHash: string): Promise<SessionRecord | null>;
  /**
   * Compare-and-set in one transaction: marks the session holding `refreshHash` rotated and inserts its successor.
   * Of two concurrent calls one wins; the other answers 'already_rotated'.
   */
  rotateSession(refreshHash: string, next: RotatedSession, atMs: number): Promise<RotateOutcome>;
  /** Records use of a session; times only move forward. */
  touchSession(sessionId: string, atMs: number): Promise<void>;
  /** Keeps the first revocation time; false when no such session, or it was already revoked. */
  revokeSession(sessionId: string, atMs: number): Promise<boolean>;
  /** Revokes every session of the family (reuse, sign-out); answers how many were revoked now. */
  revokeFamily(familyId: string, atMs: number): Promise<number>;
  /**
   * Sign out everywhere (password change or reset), optionally keeping one session: revokes the live sessions (those
   * `listLiveSessions` shows at `atMs`) and answers how many. A rotated predecessor is left as it is: its token is
   * dead already, and presented again it still counts as a reuse that revokes its family.
   */
  revokeAccountSessions(accountId: string, atMs: number, exceptSessionId?: string): Promise<number>;
  /** Sessions not revoked, not rotated, refresh token unexpired at `nowMs`; newest first. */
  listLiveSessions(accountId: string, nowMs: number): Promise<SessionRecord[]>;
  /** Deletes sessions whose refresh token expired at or before `nowMs`; answers how many. */
  sweepExpiredSessions(nowMs: number): Promise<number>;
}
