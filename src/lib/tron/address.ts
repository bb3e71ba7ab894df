/**
 * TRON addresses (research/payments.md 4.1, 5.2): 21 bytes, a 0x41 prefix and the last 20 bytes of
 * keccak-256 over the uncompressed public key without its 0x04 byte; written as base58check (`T…`, checksum = the
 * first 4 bytes of sha256(sha256(bytes))) or as 42 hex digits (`41…`, the form java-tron speaks with
 * `visible=false`).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { createBase58check } from '@scure/base';

export const ADDRESS_PREFIX = 0x41;
export const ADDRESS_BYTES = 21;

const base58check = createBase58check(sha256);

/** The 21 address bytes of a base58check `T…` address, or null unless it is canonical and well-formed. */
export function decodeAddress(address: string): Uint8Array | null {
  let bytes: Uint8Array;
  try {
    bytes = base58check.decode(address);
  } catch {
    return null; // bad alphabet or checksum
  }
  if (bytes.length !== ADDRESS_BYTES || bytes[0] !== ADDRESS_PREFIX) return null;
  // Canonical form only (5.2): re-encoding gives back exactly what was given.
  return base58check.encode(bytes) === address ? bytes : null;
}

/** Whether the text is a valid base58check TRON address (a withdrawal destination, 5.2). */
export function isTronAddress(address: string): boolean {
  return decodeAddress(address) !== null;
}

/** The base58check form of 21 address bytes; throws on anything else (a programming error, not input). */
export function encodeAddress(bytes: Uint8Array): string {
  if (bytes.length !== ADDRESS_BYTES || bytes[0] !== ADDRESS_PREFIX) {
    throw new Error('a TRON address is 21 bytes starting with 0x41');
  }
  return base58check.encode(bytes);
}

/** `41…` hex (42 digits, any case) → `T…`; null when it is not a 0x41-prefixed 21-byte value. */
export function addressFromHex(hex: string): string | null {
  if (!/^41[0-9a-fA-F]{40}$/.test(hex)) return null;
  return encodeAddress(hexToBytes(hex.toLowerCase()));
}

/** `T…` → lower-case `41…` hex; null when the address is not valid. */
export function addressToHex(address: string): string | null {
  const bytes = decodeAddress(address);
  return bytes === null ? null : bytesToHex(bytes);
}
