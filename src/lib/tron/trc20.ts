/**
 * The two pieces of the TRC-20 ABI the payments rail speaks (research/payments.md 4.1, 4.2, 5.1): the call data of
 * `transfer(address,uint256)` for a withdrawal, and the `Transfer(address,address,uint256)` log a deposit is read
 * from. The TVM uses the Ethereum ABI with 20-byte addresses: the 0x41 prefix is dropped on the way in and put back
 * on the way out.
 */
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { addressFromHex, decodeAddress } from './address.js';

/** keccak-256("transfer(address,uint256)")[0..4]. */
export const TRANSFER_SELECTOR = 'a9059cbb';
/** keccak-256("balanceOf(address)")[0..4]. */
export const BALANCE_OF_SELECTOR = '70a08231';
/** keccak-256("Transfer(address,address,uint256)"), the log's topics[0]. */
export const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

const UINT256_MAX = (1n << 256n) - 1n;
const WORD_HEX = 64;

/**
 * Call data `a9059cbb ‖ 12 zero bytes ‖ 20-byte recipient ‖ uint256 amount`. The recipient is padded from 20 bytes,
 * not 21 (5.1: strict ABI decoders reject the 0x41 byte some examples leave in).
 */
export function encodeTransferCall(to: string, amount: bigint): Uint8Array {
  const recipient = decodeAddress(to);
  if (recipient === null) throw new Error('the recipient is not a valid TRON address');
  if (amount < 0n || amount > UINT256_MAX) throw new RangeError('the amount does not fit a uint256');
  const hex = TRANSFER_SELECTOR + bytesToHex(recipient.subarray(1)).padStart(WORD_HEX, '0');
  return hexToBytes(hex + amount.toString(16).padStart(WORD_HEX, '0'));
}

/**
 * The ABI parameter of `balanceOf(address)` (one word: the 20-byte holder), as java-tron's
 * `/wallet/triggerconstantcontract` takes it beside `function_selector` (research/payments.md 5.3: reconciliation).
 */
export function encodeBalanceOfParameter(holder: string): string {
  const bytes = decodeAddress(holder);
  if (bytes === null) throw new Error('the holder is not a valid TRON address');
  return bytesToHex(bytes.subarray(1)).padStart(WORD_HEX, '0');
}

/** The holder a `balanceOf(address)` call data asks about, or null when it is not exactly such a call. */
export function decodeBalanceOfCall(data: Uint8Array): string | null {
  const hex = bytesToHex(data);
  if (hex.length !== 8 + WORD_HEX || !hex.startsWith(BALANCE_OF_SELECTOR)) return null;
  return wordToAddress(hex.slice(8));
}

/** A uint256 return value (one 32-byte word, hex), or null when it is not one. */
export function decodeUint256(word: string): bigint | null {
  return /^[0-9a-fA-F]{64}$/.test(word) ? BigInt(`0x${word}`) : null;
}

/** What a transfer call carries, or null when the data is not exactly a `transfer(address,uint256)` call. */
export function decodeTransferCall(data: Uint8Array): { to: string; amount: bigint } | null {
  const hex = bytesToHex(data);
  if (hex.length !== 8 + 2 * WORD_HEX || !hex.startsWith(TRANSFER_SELECTOR)) return null;
  const to = wordToAddress(hex.slice(8, 8 + WORD_HEX));
  return to === null ? null : { to, amount: BigInt(`0x${hex.slice(8 + WORD_HEX)}`) };
}

/** An event log as java-tron reports it (`visible=false`): the emitter's 20-byte hex address, topics, data. */
export interface EventLog {
  address: string;
  topics: readonly string[];
  data: string;
}

export interface Trc20Transfer {
  /** The emitting contract, base58check. */
  contract: string;
  from: string;
  to: string;
  amount: bigint;
}

/**
 * The transfer a `Transfer` log records, or null for any other log or a malformed one (wrong topic count, data
 * not one word). Which contract emitted it is the caller's filter: fake tokens emit identical logs (4.2).
 */
export function decodeTransferLog(log: EventLog): Trc20Transfer | null {
  const [topic, fromWord, toWord, ...rest] = log.topics.map((t) => t.toLowerCase());
  if (topic !== TRANSFER_TOPIC || fromWord === undefined || toWord === undefined || rest.length > 0) return null;
  if (!/^[0-9a-fA-F]{40}$/.test(log.address) || !/^[0-9a-fA-F]{64}$/.test(log.data)) return null;
  const contract = addressFromHex(`41${log.address}`);
  const from = wordToAddress(fromWord);
  const to = wordToAddress(toWord);
  if (contract === null || from === null || to === null) return null;
  return { contract, from, to, amount: BigInt(`0x${log.data}`) };
}

/** A 32-byte ABI word holding an address (12 zero bytes, then 20) → base58check; null otherwise. */
function wordToAddress(word: string): string | null {
  if (!/^0{24}[0-9a-f]{40}$/.test(word)) return null;
  return addressFromHex(`41${word.slice(24)}`);
}

/** The log a successful transfer emits (the fake node and the in-memory chain write it as java-tron does). */
export function transferLog(transfer: Trc20Transfer): EventLog {
  const word = (address: string): string => {
    const bytes = decodeAddress(address);
    if (bytes === null) throw new Error('not a valid TRON address');
    return bytesToHex(bytes.subarray(1)).padStart(WORD_HEX, '0');
  };
  return {
    address: word(transfer.contract).slice(24),
    topics: [TRANSFER_TOPIC, word(transfer.from), word(transfer.to)],
    data: transfer.amount.toString(16).padStart(WORD_HEX, '0'),
  };
}
