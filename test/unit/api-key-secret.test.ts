import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  API_KEY_PREFIX,
  displayHint,
  generateApiKey,
  hashApiKey,
  looksLikeApiKey,
} from '../../src/domain/keys/api-key-secret.js';

describe('generateApiKey', () => {
  it('is the cgw_ prefix and 40 base62 characters (SPEC 5.1: a fixed service prefix)', () => {
    expect(API_KEY_PREFIX).toBe('cgw_');
    const key = generateApiKey();
    expect(key).toMatch(/^cgw_[0-9A-Za-z]{40}$/);
    expect(looksLikeApiKey(key)).toBe(true);
  });

  it('does not repeat', () => {
    expect(new Set(Array.from({ length: 1_000 }, generateApiKey)).size).toBe(1_000);
  });
});

describe('hashApiKey', () => {
  it('is the SHA-256 hex of the whole key', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hashApiKey('cgw_x')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('differs for keys that differ in one character', () => {
    const key = generateApiKey();
    const other = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
    expect(hashApiKey(other)).not.toBe(hashApiKey(key));
  });
});

describe('looksLikeApiKey', () => {
  const body = 'A'.repeat(40);

  it.each([
    ['no prefix', body],
    ['another prefix', `sk-_${body}`],
    ['upper-case prefix', `CGW_${body}`],
    ['39 characters', `cgw_${body.slice(1)}`],
    ['41 characters', `cgw_${body}A`],
    ['a non-base62 character', `cgw_${body.slice(1)}-`],
    ['surrounding space', ` cgw_${body}`],
    ['a trailing newline', `cgw_${body}\n`],
    ['empty', ''],
  ])('rejects %s', (_label, candidate) => {
    expect(looksLikeApiKey(candidate)).toBe(false);
  });

  it('accepts the prefix and exactly 40 base62 characters', () => {
    expect(looksLikeApiKey(`cgw_${'aZ09'.repeat(10)}`)).toBe(true);
  });
});

describe('displayHint', () => {
  it('shows the prefix, the first 4 and the last 4 characters only', () => {
    const key = `cgw_AbCd${'0'.repeat(32)}wXyZ`;
    expect(displayHint(key)).toBe('cgw_AbCd…wXyZ');
  });

  it('does not reveal enough to rebuild the key', () => {
    const key = generateApiKey();
    expect(displayHint(key)).toHaveLength('cgw_'.length + 4 + 1 + 4);
    expect(key.includes(displayHint(key))).toBe(false);
  });
});
