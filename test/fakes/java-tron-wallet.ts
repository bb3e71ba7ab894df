/**
 * A test wallet that builds, signs and encodes TRC-20 transfers with the project's own helpers (src/lib/tron), the
 * way the withdrawal signer will: TAPOS from a reference block, call data, raw protobuf, txid, r‖s‖v.
 */
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import type { ChainBlock } from '../../src/adapters/tron-chain/index.js';
import { addressFromPrivateKey } from '../../src/lib/tron/key-address.js';
import { signTransactionId } from '../../src/lib/tron/signature.js';
import {
  encodeSignedTransaction,
  encodeTriggerSmartContract,
  taposFrom,
  transactionId,
} from '../../src/lib/tron/transaction.js';
import { encodeTransferCall } from '../../src/lib/tron/trc20.js';

/** Two fixed keys: the abandon mnemonic's m/44'/195'/0'/0/0 and /1 (research/payments.md 4.1). */
export const HOT_KEY = hexToBytes('b5a4cea271ff424d7c31dc12a3e43e401df7a40d7412a15750f3f0b6b5449a28');
export const OTHER_KEY = hexToBytes('edb728e259afca2ddcc428459e7681b8414668649aedbc8d25c0872da219b2e6');
export const HOT_ADDRESS = addressFromPrivateKey(HOT_KEY);
export const OTHER_ADDRESS = addressFromPrivateKey(OTHER_KEY);
/** USDT's mainnet contract, and a look-alike token at another address (4.2: fake "USDT" tokens). */
export const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
export const FAKE_TOKEN = 'TY72iA3SBtrds3QLYsS7LwYfkzXwAXCRWT';

export interface TransferSpec {
  to: string;
  amount: bigint;
  reference: ChainBlock;
  /** Default: the hot wallet's key. */
  key?: Uint8Array;
  /** Default: the key's own address (a different owner makes the signature not match). */
  owner?: string;
  contract?: string;
  lifetimeMs?: number;
  /** Overrides the reference block's TAPOS fields (a stale or unknown block). */
  refBlockHash?: string;
  /** Flips a bit of r after signing. */
  tamper?: boolean;
}

export function signedTransfer(spec: TransferSpec): { hex: string; txid: string } {
  const key = spec.key ?? HOT_KEY;
  const tapos = taposFrom(spec.reference, spec.lifetimeMs ?? 60_000);
  const raw = encodeTriggerSmartContract({
    ...tapos,
    refBlockHash: spec.refBlockHash ?? tapos.refBlockHash,
    owner: spec.owner ?? addressFromPrivateKey(key),
    contract: spec.contract ?? USDT,
    data: encodeTransferCall(spec.to, spec.amount),
    feeLimitSun: 30_000_000n,
  });
  const txid = transactionId(raw);
  const signature = signTransactionId(txid, key);
  if (spec.tamper) signature[5] = (signature[5] ?? 0) ^ 0x01;
  return { hex: bytesToHex(encodeSignedTransaction(raw, [signature])), txid };
}
