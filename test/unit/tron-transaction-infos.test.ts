/**
 * Reading java-tron TransactionInfo JSON (docs/api/http/block-and-tx-query/gettransactioninfobyid.md) and the
 * deposit filter both tron-chain adapters share (research/payments.md 4.2).
 */
import { describe, expect, it } from 'vitest';
import {
  readTransactionInfo,
  readTransactionInfoList,
  readUint256Result,
} from '../../src/adapters/tron-chain/java-tron-wire.js';
import { transactionState, transferEvents } from '../../src/adapters/tron-chain/transaction-infos.js';
import { transferLog } from '../../src/lib/tron/trc20.js';

const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const FROM = 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH';
const TO = 'TSeJkUh4Qv67VNFwY8LaAxERygNdy6NQZK';
const TXID = 'AB'.repeat(32);
const log = transferLog({ contract: USDT, from: FROM, to: TO, amount: 42n });
const info = (extra: Record<string, unknown>) => ({
  id: TXID,
  blockNumber: 7,
  blockTimeStamp: 21_000,
  log: [log],
  ...extra,
});

describe('java-tron TransactionInfo', () => {
  it('reads a successful call: lower-cased id, absent fee as 0, logs as given', () => {
    expect(readTransactionInfo(info({ receipt: { result: 'SUCCESS' } }))).toEqual({
      txid: TXID.toLowerCase(),
      blockNumber: 7,
      blockTimeMs: 21_000,
      failed: false,
      receiptResult: 'SUCCESS',
      feeSun: 0n,
      logs: [log],
    });
  });

  it('reads a log without data or topics (proto3 omits empty fields) and {} as no transaction', () => {
    const bare = readTransactionInfo(info({ receipt: { result: 'SUCCESS' }, log: [{ address: log.address }] }));
    expect(bare?.logs).toEqual([{ address: log.address, topics: [], data: '' }]);
    expect(readTransactionInfo({})).toBeNull();
    expect(readTransactionInfoList({})).toEqual([]);
  });

  it('refuses shapes java-tron does not send', () => {
    for (const bad of [
      null,
      [],
      info({ id: 'xyz' }),
      info({ blockNumber: -1 }),
      info({ blockNumber: 1.5 }),
      info({ log: {} }),
      info({ result: 'MAYBE' }),
      info({ receipt: { result: 1 } }),
      info({ log: [{ address: 5 }] }),
    ]) {
      expect(() => readTransactionInfo(bad)).toThrow(expect.objectContaining({ kind: 'refused' }));
    }
    expect(() => readTransactionInfoList([{}])).toThrow(expect.objectContaining({ kind: 'refused' }));
  });
});

describe('deposits and states from infos', () => {
  const read = (extra: Record<string, unknown>) => {
    const record = readTransactionInfo(info(extra));
    if (record === null) throw new Error('expected an info');
    return record;
  };

  it('takes Transfer logs only from receipts that say SUCCESS, and only of the asked contract', () => {
    const ok = read({ receipt: { result: 'SUCCESS' } });
    expect(transferEvents([ok], USDT)).toEqual([
      { txid: ok.txid, logIndex: 0, from: FROM, to: TO, amount: 42n, blockNumber: 7, blockTimeMs: 21_000 },
    ]);
    expect(transferEvents([ok], TO)).toEqual([]);
    expect(transferEvents([read({ receipt: {} })], USDT)).toEqual([]); // no receipt result: not a contract call
    expect(transferEvents([read({ receipt: { result: 'REVERT' }, result: 'FAILED' })], USDT)).toEqual([]);
    expect(transferEvents([read({ receipt: { result: 'SUCCESS' }, result: 'FAILED' })], USDT)).toEqual([]);
  });

  it('says FAILED for a failed result or any receipt other than SUCCESS, and absent for none', () => {
    expect(transactionState(null)).toEqual({ kind: 'absent' });
    expect(transactionState(read({ receipt: { result: 'SUCCESS' }, fee: 345_000 }))).toEqual({
      kind: 'in_block',
      status: 'SUCCESS',
      receiptResult: 'SUCCESS',
      blockNumber: 7,
      blockTimeMs: 21_000,
      feeSun: 345_000n,
    });
    expect(transactionState(read({ receipt: { result: 'OUT_OF_ENERGY' } }))).toMatchObject({
      status: 'FAILED',
      receiptResult: 'OUT_OF_ENERGY',
    });
    expect(transactionState(read({ receipt: {}, result: 'FAILED' }))).toMatchObject({
      status: 'FAILED',
      receiptResult: null,
    });
    expect(transactionState(read({ receipt: {} }))).toMatchObject({ status: 'SUCCESS', receiptResult: null });
  });
});

describe('java-tron constant calls', () => {
  const word = `${'0'.repeat(56)}40cfcc00`;

  it('reads the one uint256 of a successful call', () => {
    const answer = { result: { result: true }, energy_used: 935, constant_result: [word], transaction: { ret: [{}] } };
    expect(readUint256Result(answer)).toBe(1_087_360_000n);
  });

  it('refuses an unknown contract, a reverted call and answers without a 32-byte result', () => {
    const refused = expect.objectContaining({ kind: 'refused' });
    const reverted = { result: { result: true }, constant_result: [word], transaction: { ret: [{ ret: 'FAILED' }] } };
    for (const bad of [
      { result: { code: 'CONTRACT_VALIDATE_ERROR', message: '536d617274' } },
      reverted,
      { result: { result: true }, constant_result: [] },
      { result: { result: true }, constant_result: ['40cfcc00'] },
      { Error: 'x' },
      [],
    ]) {
      expect(() => readUint256Result(bad)).toThrow(refused);
    }
  });
});
