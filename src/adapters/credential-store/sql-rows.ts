import type { LoginRecord, SessionRecord } from './index.js';

/** Integer columns arrive as number (SQLite) or BigInt (pg int8, see db/connect.ts); the domain wants numbers. */
type Int = number | bigint | string;

export interface LoginRow {
  account_id: string;
  email: string;
  password_hash: string;
  email_confirmed_at_ms: Int | null;
  totp_secret: string | null;
  totp_last_step: Int | null;
  created_at_ms: Int;
  updated_at_ms: Int;
}

export interface SessionRow {
  id: string;
  account_id: string;
  family_id: string;
  access_hash: string;
  refresh_hash: string;
  access_expires_at_ms: Int;
  refresh_expires_at_ms: Int;
  created_at_ms: Int;
  last_used_at_ms: Int;
  user_agent: string | null;
  ip: string | null;
  rotated_at_ms: Int | null;
  revoked_at_ms: Int | null;
}

const nullableNumber = (v: Int | null): number | null => (v === null ? null : Number(v));

export function toLogin(row: LoginRow, recoveryCodeHashes: string[]): LoginRecord {
  return {
    accountId: row.account_id,
    email: row.email,
    passwordHash: row.password_hash,
    emailConfirmedAtMs: nullableNumber(row.email_confirmed_at_ms),
    totpSecret: row.totp_secret,
    totpLastStep: nullableNumber(row.totp_last_step),
    recoveryCodeHashes,
    createdAtMs: Number(row.created_at_ms),
    updatedAtMs: Number(row.updated_at_ms),
  };
}

export function toSession(row: SessionRow): SessionRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    familyId: row.family_id,
    accessHash: row.access_hash,
    refreshHash: row.refresh_hash,
    accessExpiresAtMs: Number(row.access_expires_at_ms),
    refreshExpiresAtMs: Number(row.refresh_expires_at_ms),
    createdAtMs: Number(row.created_at_ms),
    lastUsedAtMs: Number(row.last_used_at_ms),
    userAgent: row.user_agent,
    ip: row.ip,
    rotatedAtMs: nullableNumber(row.rotated_at_ms),
    revokedAtMs: nullableNumber(row.revoked_at_ms),
  };
}
