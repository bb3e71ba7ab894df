/**
 * A TRC-20 transfer as a TRON transaction, built locally without tronweb (research/payments.md 5.1): the protobuf
 * `Transaction.raw` of one TriggerSmartContract, its txid = sha256(raw), and the signed `Transaction` that
 * `/wallet/broadcasthex` takes. Field numbers are java-tron's `protocol/src/main/protos/core/Tron.proto` and
 * `contract/smart_contract.proto`; the encoder reproduces the raw_data_hex and txID of the java-tron docs' example
 * (`docs/api/http/smart-contract/triggersmartcontract.md`) byte for byte (test/unit/tron-transaction.test.ts).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { addressFromHex, decodeAddress } from './address.js';
import { bytesField, bytesOf, readFields, varintField, varintOf } from './protobuf.js';

/** `Transaction.Contract.ContractType.TriggerSmartContract`. */
export const TRIGGER_SMART_CONTRACT = 31;
const TRIGGER_TYPE_URL = 'type.googleapis.com/protocol.TriggerSmartContract';

/** TAPOS (transaction as proof of stake): the block a transaction names, and its own time window. */
export interface Tapos {
  /** Bytes 6..8 of the block number (its low 16 bits), 4 hex digits. */
  refBlockBytes: string;
  /** Bytes 8..16 of the block id, 16 hex digits. */
  refBlockHash: string;
  timestampMs: number;
  expirationMs: number;
}

export interface TriggerSmartContractFields extends Tapos {
  /** The signer, base58check. */
  owner: string;
  /** The called contract, base58check. */
  contract: string;
  data: Uint8Array;
  feeLimitSun: bigint;
}

/** A block as TAPOS sees it: number, id (64 hex digits) and time. */
export interface BlockRef {
  number: number;
  id: string;
  timestampMs: number;
}

/**
 * TAPOS fields from a reference block, as tronweb derives them (`AbstractTrx.getCurrentRefBlockParams`): the
 * block's time is the transaction's, and it expires `lifetimeMs` after it.
 */
export function taposFrom(block: BlockRef, lifetimeMs: number): Tapos {
  if (!/^[0-9a-f]{64}$/.test(block.id)) throw new Error('a block id is 64 lower-case hex digits');
  return {
    refBlockBytes: (block.number & 0xffff).toString(16).padStart(4, '0'),
    refBlockHash: block.id.slice(16, 32),
    timestampMs: block.timestampMs,
    expirationMs: block.timestampMs + lifetimeMs,
  };
}

function addressBytes(address: string): Uint8Array {
  const bytes = decodeAddress(address);
  if (bytes === null) throw new Error(`not a valid TRON address: ${address}`);
  return bytes;
}

/** `Transaction.raw` of a single TriggerSmartContract, fields in number order (1, 4, 8, 11, 14, 18). */
export function encodeTriggerSmartContract(fields: TriggerSmartContractFields): Uint8Array {
  const trigger = [
    ...bytesField(1, addressBytes(fields.owner)),
    ...bytesField(2, addressBytes(fields.contract)),
    ...bytesField(4, fields.data),
  ];
  const any = [...bytesField(1, utf8ToBytes(TRIGGER_TYPE_URL)), ...bytesField(2, trigger)];
  const contract = [...varintField(1, TRIGGER_SMART_CONTRACT), ...bytesField(2, any)];
  return Uint8Array.from([
    ...bytesField(1, hexToBytes(fields.refBlockBytes)),
    ...bytesField(4, hexToBytes(fields.refBlockHash)),
    ...varintField(8, fields.expirationMs),
    ...bytesField(11, contract),
    ...varintField(14, fields.timestampMs),
    ...varintField(18, fields.feeLimitSun),
  ]);
}

/** The transaction id: sha256 of the raw bytes, 64 hex digits. */
export function transactionId(raw: Uint8Array): string {
  return bytesToHex(sha256(raw));
}

/** The signed `Transaction` (1 raw_data, 2 signature) that `/wallet/broadcasthex` takes, as bytes. */
export function encodeSignedTransaction(raw: Uint8Array, signatures: readonly Uint8Array[]): Uint8Array {
  return Uint8Array.from([...bytesField(1, raw), ...signatures.flatMap((s) => bytesField(2, s))]);
}

export interface DecodedTransaction {
  raw: Uint8Array;
  txid: string;
  signatures: Uint8Array[];
  refBlockBytes: string;
  refBlockHash: string;
  expirationMs: number;
  timestampMs: number;
  feeLimitSun: bigint;
  /** The contracts of the raw data; a TRC-20 transfer has exactly one of type 31. */
  contracts: { type: number; owner: string | null; contract: string | null; data: Uint8Array }[];
}

/** Reads a signed transaction (what a node does with broadcasthex); throws `RangeError` when it is not one. */
export function decodeSignedTransaction(bytes: Uint8Array): DecodedTransaction {
  const outer = readFields(bytes);
  const raw = bytesOf(outer, 1).at(-1) ?? new Uint8Array();
  const fields = readFields(raw);
  return {
    raw,
    txid: transactionId(raw),
    signatures: bytesOf(outer, 2),
    refBlockBytes: bytesToHex(bytesOf(fields, 1).at(-1) ?? new Uint8Array()),
    refBlockHash: bytesToHex(bytesOf(fields, 4).at(-1) ?? new Uint8Array()),
    expirationMs: Number(varintOf(fields, 8)),
    timestampMs: Number(varintOf(fields, 14)),
    feeLimitSun: varintOf(fields, 18),
    contracts: bytesOf(fields, 11).map(decodeContract),
  };
}

function decodeContract(bytes: Uint8Array): DecodedTransaction['contracts'][number] {
  const fields = readFields(bytes);
  const any = readFields(bytesOf(fields, 2).at(-1) ?? new Uint8Array());
  const trigger = readFields(bytesOf(any, 2).at(-1) ?? new Uint8Array());
  const address = (field: number): string | null => {
    const value = bytesOf(trigger, field).at(-1);
    return value === undefined ? null : addressFromHex(bytesToHex(value));
  };
  return {
    type: Number(varintOf(fields, 1)),
    owner: address(1),
    contract: address(2),
    data: bytesOf(trigger, 4).at(-1) ?? new Uint8Array(),
  };
}
