/**
 * The transaction encoder against the java-tron docs' example (docs/api/http/smart-contract/
 * triggersmartcontract.md, a real Nile capture): same raw_data_hex, same txID; the decoder reads back what the
 * encoder wrote, and signatures recover to the signer.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import { addressFromHex } from '../../src/lib/tron/address.js';
import { addressFromPrivateKey } from '../../src/lib/tron/key-address.js';
import { recoverSigner, signTransactionId } from '../../src/lib/tron/signature.js';
import {
  decodeSignedTransaction,
  encodeSignedTransaction,
  encodeTriggerSmartContract,
  TRIGGER_SMART_CONTRACT,
  taposFrom,
  transactionId,
} from '../../src/lib/tron/transaction.js';
import { encodeTransferCall } from '../../src/lib/tron/trc20.js';

const DOCS_RAW_HEX =
  '0a0228c32208ce6d34028278856940f89cf1c0dd335aae01081f12a9010a31747970652e676f6f676c65617069732e636f6d2f70726f746f636f6c2e54726967676572536d617274436f6e747261637412740a1541dd791d6b49e190062d650e6a23c575510d35f2f9121541eca9bc828a3005b9a3b909f2cc5c2a54794de05f2244a9059cbb000000000000000000000000088a2bfcb1c7271029fd69a66859d5556089588400000000000000000000000000000000000000000000000000000000000000647089d0edc0dd33900180c2d72f';
const DOCS_TXID = '8c621a0dc9bd4d405b20d0a43143955b9f546f98bbfde1aec295a65b0f925629';
const hex = (value: string): string => addressFromHex(value) ?? '';
const DOCS_FIELDS = {
  owner: hex('41dd791d6b49e190062d650e6a23c575510d35f2f9'),
  contract: hex('41eca9bc828a3005b9a3b909f2cc5c2a54794de05f'),
  // The docs' request: function_selector transfer(address,uint256), recipient 41088a2b…, amount 0x64.
  data: encodeTransferCall(hex('41088a2bfcb1c7271029fd69a66859d55560895884'), 100n),
  refBlockBytes: '28c3',
  refBlockHash: 'ce6d340282788569',
  expirationMs: 1777447227000,
  timestampMs: 1777447168009,
  feeLimitSun: 100_000_000n,
};
const KEY = hexToBytes('b5a4cea271ff424d7c31dc12a3e43e401df7a40d7412a15750f3f0b6b5449a28');

describe('TriggerSmartContract transaction', () => {
  it('encodes the docs example byte for byte and hashes it to the documented txID', () => {
    const raw = encodeTriggerSmartContract(DOCS_FIELDS);
    expect(bytesToHex(raw)).toBe(DOCS_RAW_HEX);
    expect(transactionId(raw)).toBe(DOCS_TXID);
  });

  it('decodes a signed transaction back to its fields, raw bytes, txid and signature', () => {
    const raw = hexToBytes(DOCS_RAW_HEX);
    const signature = signTransactionId(DOCS_TXID, KEY);
    const decoded = decodeSignedTransaction(encodeSignedTransaction(raw, [signature]));
    expect(bytesToHex(decoded.raw)).toBe(DOCS_RAW_HEX);
    expect(decoded.txid).toBe(DOCS_TXID);
    expect(decoded.signatures.map(bytesToHex)).toEqual([bytesToHex(signature)]);
    expect(decoded).toMatchObject({
      refBlockBytes: '28c3',
      refBlockHash: 'ce6d340282788569',
      expirationMs: DOCS_FIELDS.expirationMs,
      timestampMs: DOCS_FIELDS.timestampMs,
      feeLimitSun: 100_000_000n,
    });
    expect(decoded.contracts).toEqual([
      {
        type: TRIGGER_SMART_CONTRACT,
        owner: DOCS_FIELDS.owner,
        contract: DOCS_FIELDS.contract,
        data: DOCS_FIELDS.data,
      },
    ]);
  });

  it('refuses truncated bytes', () => {
    const signed = encodeSignedTransaction(hexToBytes(DOCS_RAW_HEX), [new Uint8Array(65)]);
    expect(() => decodeSignedTransaction(signed.subarray(0, 40))).toThrow(RangeError);
    expect(() => decodeSignedTransaction(hexToBytes('0a'))).toThrow(RangeError);
  });

  it('takes TAPOS from a reference block as tronweb does', () => {
    const block = {
      number: 66987627,
      id: '0000000003fe266bf6b6d392f654dc2e5011601546ed04623d9fcc4e9d439a25',
      timestampMs: 1777445307000,
    };
    // 66987627 = 0x3fe266b: low 16 bits 266b; the id's bytes 8..16.
    expect(taposFrom(block, 60_000)).toEqual({
      refBlockBytes: '266b',
      refBlockHash: 'f6b6d392f654dc2e',
      timestampMs: 1777445307000,
      expirationMs: 1777445367000,
    });
  });
});

describe('transaction signatures', () => {
  it('signs r‖s‖(recid+27) that secp256k1 verifies and that recovers to the signer', () => {
    const signature = signTransactionId(DOCS_TXID, KEY);
    expect(signature).toHaveLength(65);
    expect([27, 28]).toContain(signature[64]);
    // Second computation: noble's own verify over r‖s with the key's public point.
    const publicKey = secp256k1.getPublicKey(KEY, false);
    expect(secp256k1.verify(signature.subarray(0, 64), hexToBytes(DOCS_TXID), publicKey, { prehash: false })).toBe(
      true,
    );
    expect(recoverSigner(DOCS_TXID, signature)).toBe(addressFromPrivateKey(KEY));
    expect(recoverSigner(DOCS_TXID, signature)).toBe('TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH');
  });

  it('recovers someone else (or nothing) from a tampered signature, another txid or a malformed one', () => {
    const signature = signTransactionId(DOCS_TXID, KEY);
    const tampered = signature.slice();
    tampered[10] = (tampered[10] ?? 0) ^ 1;
    expect(recoverSigner(DOCS_TXID, tampered)).not.toBe(addressFromPrivateKey(KEY));
    expect(recoverSigner('00'.repeat(32), signature)).not.toBe(addressFromPrivateKey(KEY));
    expect(recoverSigner(DOCS_TXID, signature.subarray(0, 64))).toBeNull();
    const badV = signature.slice();
    badV[64] = 35;
    expect(recoverSigner(DOCS_TXID, badV)).toBeNull();
  });
});
