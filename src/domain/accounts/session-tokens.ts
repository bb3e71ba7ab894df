import { randomBase62 } from '../../lib/ids.js';
import { hashApiKey } from '../keys/api-key-secret.js';

/**
 * Session tokens, the spec's `<ACCESS_TOKEN>` (DESIGN.md 10: "opaque, random, stored hashed, short-lived with a
 * refresh, revocable"). Each is a prefix and 43 base62 characters (≈ 256 bits, the randomness of 32 bytes), drawn
 * like API keys; the prefix tells the two kinds apart from each other and from an API key (`cgw_` + 40 base62, no
 * second underscore), so a token pasted in the wrong place is refused by its shape, before any lookup.
 */
export const ACCESS_TOKEN_PREFIX = 'cgw_at_';
export const REFRESH_TOKEN_PREFIX = 'cgw_rt_';
const TOKEN_RANDOM_LENGTH = 43;

/** DESIGN.md 10 "short-lived": an access token lasts 15 minutes; a stolen one is of use that long at most. */
export const ACCESS_TOKEN_TTL_MS = 15 * 60 * 1000;
/**
 * DESIGN.md 10 "with a refresh": a refresh token lasts 30 days from its issue; each refresh rotates it, so a person
 * who uses the dashboard at least once a month stays signed in, and one who does not signs in again.
 */
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000;

export type SessionTokenKind = 'access' | 'refresh';

const PREFIX: Readonly<Record<SessionTokenKind, string>> = {
  access: ACCESS_TOKEN_PREFIX,
  refresh: REFRESH_TOKEN_PREFIX,
};

/** A token as handed to its holder once, with what the store keeps instead of it. */
export interface IssuedToken {
  readonly token: string;
  /** The lookup key the store keeps (sessionTokenHash of the token). */
  readonly hash: string;
  readonly expiresAtMs: number;
}

/** A new token of `kind`, valid from `nowMs` for its kind's lifetime. */
export function issueSessionToken(kind: SessionTokenKind, nowMs: number): IssuedToken {
  const token = PREFIX[kind] + randomBase62(TOKEN_RANDOM_LENGTH);
  const ttlMs = kind === 'access' ? ACCESS_TOKEN_TTL_MS : REFRESH_TOKEN_TTL_MS;
  return { token, hash: sessionTokenHash(token), expiresAtMs: nowMs + ttlMs };
}

/**
 * The store's lookup key for a token: SHA-256 hex, the API keys' digest (keys/api-key-secret.ts). A fast unsalted
 * hash is enough for 256 random bits; a database dump yields no usable token.
 */
export function sessionTokenHash(token: string): string {
  return hashApiKey(token);
}

/** Shape check before any lookup: the kind's prefix and exactly 43 base62 characters. */
export function looksLikeSessionToken(kind: SessionTokenKind, candidate: string): boolean {
  const body = candidate.slice(PREFIX[kind].length);
  return candidate.startsWith(PREFIX[kind]) && body.length === TOKEN_RANDOM_LENGTH && /^[0-9A-Za-z]+$/.test(body);
}
