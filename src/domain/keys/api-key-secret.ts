import { hash } from 'node:crypto';
import { randomBase62 } from '../../lib/ids.js';

/** SPEC 5.1: keys begin with a fixed service-specific prefix. */
export const API_KEY_PREFIX = 'cgw_';

/** 40 base62 characters ≈ 238 bits of entropy; that is why a fast unsalted hash is enough for storage. */
export const API_KEY_RANDOM_LENGTH = 40;

const API_KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${API_KEY_RANDOM_LENGTH}}$`);

/** A new secret, shown to its owner once; only its hash is stored. */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBase62(API_KEY_RANDOM_LENGTH);
}

/** SHA-256 hex of the whole key, the lookup column of the api-keys store (one-shot: no Hash object per request). */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/**
 * Shape check done before any lookup, so a malformed key answers `invalid_api_key` (SPEC 5.4)
 * without touching the database.
 */
export function looksLikeApiKey(candidate: string): boolean {
  return API_KEY_PATTERN.test(candidate);
}

/** What listings show in place of the secret: `cgw_AbCd…wXyZ` (prefix, first 4, ellipsis, last 4). */
export function displayHint(key: string): string {
  const body = key.startsWith(API_KEY_PREFIX) ? key.slice(API_KEY_PREFIX.length) : key;
  return `${API_KEY_PREFIX}${body.slice(0, 4)}…${body.slice(-4)}`;
}
