import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  ACCESS_TOKEN_PREFIX,
  ACCESS_TOKEN_TTL_MS,
  issueSessionToken,
  looksLikeSessionToken,
  REFRESH_TOKEN_PREFIX,
  REFRESH_TOKEN_TTL_MS,
  sessionTokenHash,
} from '../../src/domain/accounts/session-tokens.js';
import { looksLikeApiKey } from '../../src/domain/keys/api-key-secret.js';

const NOW_MS = Date.UTC(2026, 10, 26, 9, 0, 0);

describe('issueSessionToken', () => {
  it('makes an access token: its prefix, 43 base62 characters, 15 minutes of life', () => {
    expect(ACCESS_TOKEN_PREFIX).toBe('cgw_at_');
    expect(ACCESS_TOKEN_TTL_MS).toBe(15 * 60 * 1000);
    const issued = issueSessionToken('access', NOW_MS);
    expect(issued.token).toMatch(/^cgw_at_[0-9A-Za-z]{43}$/);
    expect(issued.expiresAtMs).toBe(NOW_MS + ACCESS_TOKEN_TTL_MS);
  });

  it('makes a refresh token: its own prefix, 30 days of life', () => {
    expect(REFRESH_TOKEN_PREFIX).toBe('cgw_rt_');
    expect(REFRESH_TOKEN_TTL_MS).toBe(30 * 24 * 60 * 60 * 1000);
    const issued = issueSessionToken('refresh', NOW_MS);
    expect(issued.token).toMatch(/^cgw_rt_[0-9A-Za-z]{43}$/);
    expect(issued.expiresAtMs).toBe(NOW_MS + REFRESH_TOKEN_TTL_MS);
  });

  it('hands back the hash to store, never needing the token again', () => {
    const issued = issueSessionToken('access', NOW_MS);
    expect(issued.hash).toBe(createHash('sha256').update(issued.token).digest('hex'));
    expect(issued.hash).toBe(sessionTokenHash(issued.token));
    expect(issued.hash).not.toContain(issued.token.slice(ACCESS_TOKEN_PREFIX.length));
  });

  it('does not repeat', () => {
    const tokens = Array.from({ length: 1_000 }, () => issueSessionToken('refresh', NOW_MS).token);
    expect(new Set(tokens).size).toBe(1_000);
  });
});

describe('looksLikeSessionToken', () => {
  const access = issueSessionToken('access', NOW_MS).token;
  const refresh = issueSessionToken('refresh', NOW_MS).token;

  it('accepts each kind under its own name only', () => {
    expect(looksLikeSessionToken('access', access)).toBe(true);
    expect(looksLikeSessionToken('refresh', refresh)).toBe(true);
    expect(looksLikeSessionToken('access', refresh)).toBe(false);
    expect(looksLikeSessionToken('refresh', access)).toBe(false);
  });

  it('is never taken for an API key, nor an API key for it', () => {
    expect(looksLikeApiKey(access)).toBe(false);
    expect(looksLikeApiKey(refresh)).toBe(false);
    expect(looksLikeSessionToken('access', `cgw_${'A'.repeat(40)}`)).toBe(false);
  });

  it.each([
    ['one character short', access.slice(0, -1)],
    ['one character long', `${access}A`],
    ['a base64url character', `${access.slice(0, -1)}-`],
    ['a trailing newline', `${access}\n`],
    ['the prefix alone', ACCESS_TOKEN_PREFIX],
    ['empty', ''],
  ])('refuses %s', (_label, candidate) => {
    expect(looksLikeSessionToken('access', candidate)).toBe(false);
  });
});
