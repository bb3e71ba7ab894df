import { randomFillSync } from 'node:crypto';

/** Digits, then upper case, then lower case: 62 symbols that survive URLs, headers and shells unquoted. */
export const BASE62_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Bytes at or above this are discarded: 248 = 4 × 62, so `byte % 62` is uniform below it (no modulo bias). */
const UNBIASED_LIMIT = 248;

/**
 * Cryptographic random bytes, filled 4 KiB at a time: one system call per a few hundred ids instead of one per
 * id (it was the largest single cost of a request). Every byte is handed out once.
 */
const pool = Buffer.allocUnsafe(4096);
let next = pool.length;

function randomByte(): number {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++]!;
}

/** `length` characters drawn uniformly from BASE62_ALPHABET with a cryptographic source. */
export function randomBase62(length: number): string {
  if (!Number.isInteger(length) || length < 0) throw new RangeError(`length must be a non-negative integer (got ${length})`);
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < UNBIASED_LIMIT) out += BASE62_ALPHABET[byte % 62];
  }
  return out;
}

/** Length of the random part of every id: 62^20 ≈ 7·10^35, so collisions are not a practical concern. */
export const ID_RANDOM_LENGTH = 20;

/** A prefixed id such as `acc_…`, `key_…`, `req_…` (DESIGN 6: ids carry a prefix). */
export function newId(prefix: string): string {
  if (!/^[a-z][a-z0-9]*$/.test(prefix)) throw new RangeError(`id prefix must be lower-case alphanumeric (got ${JSON.stringify(prefix)})`);
  return `${prefix}_${randomBase62(ID_RANDOM_LENGTH)}`;
}
