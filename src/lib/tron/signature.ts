/**
 * Signing a transaction and recovering who signed it (research/payments.md 5.1 step 4). The txid is already a
 * hash, so it is signed as is (no pre-hash); TRON's signature is r(32) ‖ s(32) ‖ v with v = recovery id + 27,
 * which is what tronweb produces (it upper-cases the last hex byte; the bytes are the same). java-tron checks a
 * signature by recovering its public key and comparing the address with the owner's.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hexToBytes } from '@noble/hashes/utils.js';
import { addressFromPublicKey } from './key-address.js';

const SIGNATURE_BYTES = 65;
const V_OFFSET = 27;

/** r ‖ s ‖ (recid + 27) over the 32-byte txid (hex). Low-s, deterministic (RFC 6979). */
export function signTransactionId(txid: string, privateKey: Uint8Array): Uint8Array {
  // noble's `recovered` format puts the recovery id first: recid ‖ r ‖ s.
  const recovered = secp256k1.sign(hexToBytes(txid), privateKey, { prehash: false, format: 'recovered' });
  const signature = new Uint8Array(SIGNATURE_BYTES);
  signature.set(recovered.subarray(1), 0);
  signature[64] = (recovered[0] ?? 0) + V_OFFSET;
  return signature;
}

/**
 * The base58check address whose key made this signature over the txid, or null when the signature is malformed
 * or recovers nothing. v may be 27/28 or a bare recovery id 0/1, as java-tron accepts both.
 */
export function recoverSigner(txid: string, signature: Uint8Array): string | null {
  if (signature.length !== SIGNATURE_BYTES || !/^[0-9a-fA-F]{64}$/.test(txid)) return null;
  const v = signature[64] ?? 0;
  const recid = v >= V_OFFSET ? v - V_OFFSET : v;
  if (recid < 0 || recid > 3) return null;
  const recovered = new Uint8Array(SIGNATURE_BYTES);
  recovered[0] = recid;
  recovered.set(signature.subarray(0, 64), 1);
  try {
    const publicKey = secp256k1.recoverPublicKey(recovered, hexToBytes(txid), { prehash: false });
    return addressFromPublicKey(publicKey);
  } catch {
    return null;
  }
}
