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
  if (!Number.isInteger(length) || length < 0)
    throw new RangeError(`length must be a non-negative integer (got ${length})`);
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < UNBIASED_LIMIT) out += BASE62_ALPHABET[byte % 62];
  }
  return out;
}

/**
 * Characters after an id's prefix, all random (62^20 ≈ 7·10^35) in a newId, so collisions are not a practical
 * concern; a newSortableId spends 8 of them on its time and collides only within one millisecond (62^12 ≈ 3·10^21).
 */
export const ID_LENGTH = 20;

/** A prefixed id such as `acc_…`, `key_…`, `req_…` (DESIGN 6: ids carry a prefix). */
export function newId(prefix: string): string {
  return `${checkedPrefix(prefix)}_${randomBase62(ID_LENGTH)}`;
}

/** Leading characters of a sortable id that are its time: 62^8 ms last until the year 8900. */
const TIME_LENGTH = 8;
let lastMs = Number.NaN;
let lastTime = '';

/** `ms` as TIME_LENGTH base-62 digits, most significant first (kept for the millisecond it was made for). */
function base62Time(ms: number): string {
  if (ms !== lastMs) {
    let digits = '';
    for (let rest = ms, i = 0; i < TIME_LENGTH; i++, rest = Math.floor(rest / 62))
      digits = BASE62_ALPHABET[rest % 62]! + digits;
    lastMs = ms;
    lastTime = digits;
  }
  return lastTime;
}

/**
 * An id of newId's shape whose first 8 characters are the time it was made (ms), the other 12 random (71 bits). The
 * alphabet is in ASCII order, so string order is time order: for the ids of rows written at request rate (requests,
 * whose ids the ledger's transfers carry, and usage lines), each new key lands at the end of its index instead of on
 * a random page, and a batch of inserts dirties one page per index, not one each (ledger README "Group commit").
 */
export function newSortableId(prefix: string): string {
  return `${checkedPrefix(prefix)}_${base62Time(Date.now())}${randomBase62(ID_LENGTH - TIME_LENGTH)}`;
}

function checkedPrefix(prefix: string): string {
  if (!/^[a-z][a-z0-9]*$/.test(prefix))
    throw new RangeError(`id prefix must be lower-case alphanumeric (got ${JSON.stringify(prefix)})`);
  return prefix;
}
