/**
 * The TRON address of a secp256k1 key (research/payments.md 4.1): keccak-256 of the 64-byte X‖Y of its public key,
 * last 20 bytes, 0x41 in front. Apart from address.ts, which reads and checks addresses, so that a gateway that only
 * does that never loads the curve: deposit addresses (with TRON_XPUB) and the signer do (bench/README.md, "Memory").
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { ADDRESS_BYTES, ADDRESS_PREFIX, encodeAddress } from './address.js';

/** The address of a secp256k1 public key, compressed (33 bytes) or not (65 bytes). */
export function addressFromPublicKey(publicKey: Uint8Array): string {
  const uncompressed = secp256k1.Point.fromBytes(publicKey).toBytes(false);
  const hash = keccak_256(uncompressed.subarray(1));
  const bytes = new Uint8Array(ADDRESS_BYTES);
  bytes[0] = ADDRESS_PREFIX;
  bytes.set(hash.subarray(12), 1);
  return encodeAddress(bytes);
}

/** The address of a private key (the signer's and the tests' side; the API never holds one). */
export function addressFromPrivateKey(privateKey: Uint8Array): string {
  return addressFromPublicKey(secp256k1.getPublicKey(privateKey, false));
}
