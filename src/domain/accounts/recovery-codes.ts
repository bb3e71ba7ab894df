import { randomInt, timingSafeEqual } from 'node:crypto';
import { hashApiKey } from '../keys/api-key-secret.js';

/**
 * One-time recovery codes, shown once at TOTP enrolment (issue 26 item 4: "recovery codes, stored hashed") for the
 * day the phone is lost. Each is four groups of four from an alphabet without look-alikes (no 0/o, 1/l/i), so it
 * can be read off paper and typed back: `k7mq-3xfp-9hwd-ra2e`.
 *
 * 16 symbols of 31 ≈ 79 bits each. That is why SHA-256 is enough to store them (unlike passwords, which need
 * scrypt): guessing one from its hash is a 2^79 search, out of reach with a fast hash too.
 */
export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = '23456789abcdefghjkmnpqrstuvwxyz';
const GROUPS = 4;
const GROUP_LENGTH = 4;
const CODE_PATTERN = new RegExp(`^[${ALPHABET}]{${GROUPS * GROUP_LENGTH}}$`);

/** Fresh codes, as shown to the person once; the store keeps recoveryCodeHash of each. */
export function generateRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, generateRecoveryCode);
}

function generateRecoveryCode(): string {
  const groups = Array.from({ length: GROUPS }, () =>
    Array.from({ length: GROUP_LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join(''),
  );
  return groups.join('-');
}

/** SHA-256 hex of the code's canonical form (keys/api-key-secret.ts's digest), so `K7MQ 3XFP…` matches too. */
export function recoveryCodeHash(code: string): string {
  return hashApiKey(canonicalCode(code));
}

/** Lower case, without the hyphens and spaces people type between groups. */
function canonicalCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]+/g, '');
}

export type RecoveryCodeConsumption =
  | {
      readonly ok: true /** The hash that was used, for the store to delete. */;
      readonly usedHash: string;
      readonly remainingHashes: string[];
    }
  | { readonly ok: false };

/**
 * Consumes `presented` against the account's stored hashes: every stored hash is compared in constant time, without
 * stopping at a match. Single use under concurrency is the store's job: it removes `usedHash` with a compare-and-set
 * and refuses the sign-in when that finds the hash already gone.
 */
export function consumeRecoveryCode(presented: string, storedHashes: readonly string[]): RecoveryCodeConsumption {
  const canonical = canonicalCode(presented);
  if (!CODE_PATTERN.test(canonical)) return { ok: false };
  const candidate = Buffer.from(hashApiKey(canonical), 'hex');
  let matchIndex = -1;
  storedHashes.forEach((stored, index) => {
    const bytes = Buffer.from(stored, 'hex');
    if (bytes.length === candidate.length && timingSafeEqual(bytes, candidate) && matchIndex === -1) matchIndex = index;
  });
  if (matchIndex === -1) return { ok: false };
  const remainingHashes = storedHashes.filter((_, index) => index !== matchIndex);
  return { ok: true, usedHash: storedHashes[matchIndex]!, remainingHashes };
}
