/** TRC-20 call data and Transfer logs (research/payments.md 4.1, 4.2, 5.1). */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import { addressFromHex } from '../../src/lib/tron/address.js';
import {
  BALANCE_OF_SELECTOR,
  decodeBalanceOfCall,
  decodeTransferCall,
  decodeTransferLog,
  decodeUint256,
  encodeBalanceOfParameter,
  encodeTransferCall,
  TRANSFER_SELECTOR,
  TRANSFER_TOPIC,
  transferLog,
} from '../../src/lib/tron/trc20.js';

const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const ALICE = 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH'; // 41c8599111f29c1e1e061265b4af93ea1f274ad78a
const BOB = 'TSeJkUh4Qv67VNFwY8LaAxERygNdy6NQZK';

describe('TRC-20 ABI', () => {
  it('has the keccak-256 selector and topic of the signatures', () => {
    expect(bytesToHex(keccak_256(utf8ToBytes('transfer(address,uint256)')).subarray(0, 4))).toBe(TRANSFER_SELECTOR);
    expect(bytesToHex(keccak_256(utf8ToBytes('Transfer(address,address,uint256)')))).toBe(TRANSFER_TOPIC);
    expect(bytesToHex(keccak_256(utf8ToBytes('balanceOf(address)')).subarray(0, 4))).toBe(BALANCE_OF_SELECTOR);
  });

  it('encodes balanceOf(address) as the java-tron docs’ constant call does, and reads its uint256 answer', () => {
    // docs/api/http/smart-contract/triggerconstantcontract.md (a real Nile capture).
    const holder = addressFromHex('41dd791d6b49e190062d650e6a23c575510d35f2f9') ?? '';
    expect(encodeBalanceOfParameter(holder)).toBe('000000000000000000000000dd791d6b49e190062d650e6a23c575510d35f2f9');
    const data = '70a08231000000000000000000000000dd791d6b49e190062d650e6a23c575510d35f2f9';
    expect(decodeBalanceOfCall(Uint8Array.from(Buffer.from(data, 'hex')))).toBe(holder);
    expect(decodeBalanceOfCall(Uint8Array.from(Buffer.from(data.slice(0, 40), 'hex')))).toBeNull();
    expect(decodeUint256('0000000000000000000000000000000000000000000000000000000040cfcc00')).toBe(1_087_360_000n);
    expect(decodeUint256('40cfcc00')).toBeNull();
  });

  it('encodes transfer(address,uint256) with a 20-byte recipient and decodes it back', () => {
    const data = encodeTransferCall(ALICE, 1_500_000n);
    expect(bytesToHex(data)).toBe(
      `a9059cbb${'0'.repeat(24)}c8599111f29c1e1e061265b4af93ea1f274ad78a${(1_500_000).toString(16).padStart(64, '0')}`,
    );
    expect(decodeTransferCall(data)).toEqual({ to: ALICE, amount: 1_500_000n });
    expect(decodeTransferCall(data.subarray(0, 60))).toBeNull();
    expect(() => encodeTransferCall('not-an-address', 1n)).toThrow();
    expect(() => encodeTransferCall(ALICE, -1n)).toThrow(RangeError);
  });

  it('decodes a Transfer log as java-tron writes it (20-byte hex emitter, padded topics, one data word)', () => {
    const log = {
      address: 'a614f803b6fd780986a42c78ec9c7f77e6ded13c',
      topics: [
        TRANSFER_TOPIC,
        '000000000000000000000000c8599111f29c1e1e061265b4af93ea1f274ad78a',
        '000000000000000000000000b6e2a5c2bb3d1ab8b1b4b8fca1b4cbd4fd8b7d9e',
      ],
      data: '00000000000000000000000000000000000000000000000000000000000f4240',
    };
    const decoded = decodeTransferLog(log);
    expect(decoded).toMatchObject({ contract: USDT, from: ALICE, amount: 1_000_000n });
    expect(transferLog(decoded ?? { contract: USDT, from: ALICE, to: BOB, amount: 0n })).toEqual(log);
  });

  it('round-trips through transferLog, including a zero value and a huge one', () => {
    for (const amount of [0n, 1n, (1n << 255n) + 7n]) {
      const transfer = { contract: USDT, from: ALICE, to: BOB, amount };
      expect(decodeTransferLog(transferLog(transfer))).toEqual(transfer);
    }
  });

  it('ignores other events and malformed Transfer logs', () => {
    const good = transferLog({ contract: USDT, from: ALICE, to: BOB, amount: 5n });
    expect(
      decodeTransferLog({
        ...good,
        topics: ['c66625d03b4a832d8245f0df593e32e0fbbbad96d4aa45440aa1535b80983083', ...good.topics.slice(1)],
      }),
    ).toBeNull();
    expect(decodeTransferLog({ ...good, topics: good.topics.slice(0, 2) })).toBeNull(); // ERC-721-like arity differs
    expect(decodeTransferLog({ ...good, topics: [...good.topics, good.data] })).toBeNull();
    expect(decodeTransferLog({ ...good, data: `${good.data}00` })).toBeNull();
    expect(decodeTransferLog({ ...good, address: `41${good.address}` })).toBeNull();
    expect(
      decodeTransferLog({
        ...good,
        topics: [good.topics[0] ?? '', `ff${good.topics[1]?.slice(2)}`, good.topics[2] ?? ''],
      }),
    ).toBeNull();
  });
});
