import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Password hashing (DESIGN.md 10: scrypt from `node:crypto`, a per-user salt, the parameters stored with the hash).
 * A stored hash is one self-describing string, `scrypt$N=131072,r=8,p=1$<salt>$<hash>` (base64url), so the cost can
 * be raised later: a hash made under weaker parameters still verifies, and `needsRehash` says when to replace it at
 * the next successful sign-in.
 */

export interface ScryptCost {
  /** CPU/memory cost, a power of two. */
  readonly N: number;
  /** Block size. */
  readonly r: number;
  /** Parallelism. */
  readonly p: number;
}

/**
 * OWASP Password Storage Cheat Sheet (scrypt): N=2^17, r=8, p=1. Each hash holds 128 × N × r = 128 MiB for a few
 * hundred milliseconds of one core, on libuv's thread pool (4 threads by default): sign-in throttling (issue 26
 * item 5) is what keeps a burst of attempts from queueing many of them.
 */
export const PASSWORD_SCRYPT_COST: ScryptCost = Object.freeze({ N: 2 ** 17, r: 8, p: 1 });

const SALT_BYTES = 16;
const HASH_BYTES = 32;
const SCHEME = 'scrypt';

/** Bounds on a stored string's parameters, so a corrupt or hostile row cannot ask for gigabytes (then: no match). */
const MAX_MEMORY_BYTES = 512 * 1024 * 1024;
const MAX_P = 4;
const MIN_HASH_BYTES = 16;
const MAX_HASH_BYTES = 64;

const STORED_PATTERN =
  /^scrypt\$N=(\d{1,8}),r=(\d{1,3}),p=(\d{1,3})\$([A-Za-z0-9_-]{16,128})\$([A-Za-z0-9_-]{16,128})$/;

interface ParsedHash {
  readonly cost: ScryptCost;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

/**
 * The form a password is hashed and measured in: NFKC, as NIST SP 800-63B asks of verifiers that accept Unicode,
 * so the same password typed on two keyboards (composed or decomposed accents) is one password.
 */
export function normalisePassword(password: string): string {
  return password.normalize('NFKC');
}

/** A new stored hash of `password` under `cost` (tests pass a cheaper cost; production uses the default). */
export async function hashPassword(password: string, cost: ScryptCost = PASSWORD_SCRYPT_COST): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, cost, HASH_BYTES);
  return `${SCHEME}$N=${cost.N},r=${cost.r},p=${cost.p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

/**
 * Whether `password` matches `stored`, compared in constant time. A stored string that is not one of ours (empty,
 * truncated, another scheme, parameters out of bounds) is no match: it never throws, so sign-in answers 401, not 500.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseStoredHash(stored);
  if (!parsed) return false;
  const candidate = await derive(password, parsed.salt, parsed.cost, parsed.hash.length);
  return timingSafeEqual(candidate, parsed.hash);
}

/** Whether `stored` was made under weaker parameters than `cost` (or is not readable): hash again after sign-in. */
export function needsRehash(stored: string, cost: ScryptCost = PASSWORD_SCRYPT_COST): boolean {
  const parsed = parseStoredHash(stored);
  if (!parsed) return true;
  const { N, r, p } = parsed.cost;
  return N < cost.N || r < cost.r || p < cost.p || parsed.hash.length < HASH_BYTES;
}

function parseStoredHash(stored: string): ParsedHash | null {
  const match = STORED_PATTERN.exec(stored);
  if (!match) return null;
  const [N, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const powerOfTwo = N >= 2 && (N & (N - 1)) === 0;
  if (!powerOfTwo || r < 1 || p < 1 || p > MAX_P || memoryFor({ N, r, p }) > MAX_MEMORY_BYTES) return null;
  const salt = Buffer.from(match[4]!, 'base64url');
  const hash = Buffer.from(match[5]!, 'base64url');
  if (hash.length < MIN_HASH_BYTES || hash.length > MAX_HASH_BYTES) return null;
  return { cost: { N, r, p }, salt, hash };
}

/** What scrypt allocates: 128 × N × r bytes. */
function memoryFor(cost: ScryptCost): number {
  return 128 * cost.N * cost.r;
}

function derive(password: string, salt: Buffer, cost: ScryptCost, length: number): Promise<Buffer> {
  // node's default cap (32 MiB) is below N=2^17, r=8; twice the need leaves room for its own bookkeeping.
  const options = { N: cost.N, r: cost.r, p: cost.p, maxmem: 2 * memoryFor(cost) };
  return new Promise((resolve, reject) => {
    scrypt(normalisePassword(password), salt, length, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}
