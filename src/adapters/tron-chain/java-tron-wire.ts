/**
 * Reading java-tron's HTTP answers (`visible=false`: addresses and bytes as hex; int64 as JSON numbers) into the
 * port's types. Anything java-tron would not send is `TronNodeError('refused')`, never a crash further up: a node
 * (or a proxy in front of one) that answers garbage is an outage, not a bug of ours. Shapes are from
 * tronprotocol/documentation-en docs/api/http/block-and-tx-query/{getnowblock,gettransactioninfobyid,
 * gettransactioninfobyblocknum}.md and tx-build-and-broadcast/broadcasthex.md, smart-contract/triggerconstantcontract.md.
 */
import { isRecord } from '../../lib/is-record.js';
import { decodeUint256, type EventLog } from '../../lib/tron/trc20.js';
import { type BroadcastOutcome, type ChainBlock, TronNodeError } from './index.js';
import type { TransactionInfoRecord } from './transaction-infos.js';

const HEX_32 = /^[0-9a-fA-F]{64}$/;

function malformed(what: string): TronNodeError {
  return new TronNodeError('refused', `the node answered ${what} in a shape java-tron does not send`);
}

/** A JSON integer (proto3 omits zero, so absent reads as 0 where the field allows it). */
function int(value: unknown, what: string, absentIsZero = true): number {
  if (value === undefined && absentIsZero) return 0;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw malformed(what);
  return value;
}

/** `protocol.Block` (getnowblock): `blockID` and `block_header.raw_data.{number,timestamp}`; `{}` is no block. */
export function readBlock(body: unknown): ChainBlock {
  if (!isRecord(body) || typeof body.blockID !== 'string' || !HEX_32.test(body.blockID)) throw malformed('a block');
  const header = body.block_header;
  const raw = isRecord(header) ? header.raw_data : undefined;
  if (!isRecord(raw)) throw malformed('a block');
  return {
    number: int(raw.number, 'a block'),
    id: body.blockID.toLowerCase(),
    timestampMs: int(raw.timestamp, 'a block'),
  };
}

function readLog(value: unknown): EventLog {
  if (!isRecord(value)) throw malformed('a log');
  const { address, topics = [], data = '' } = value;
  if (typeof address !== 'string' || typeof data !== 'string' || !Array.isArray(topics)) throw malformed('a log');
  if (!topics.every((t): t is string => typeof t === 'string')) throw malformed('a log');
  return { address: address.toLowerCase(), topics, data };
}

/** `protocol.TransactionInfo`, or null for `{}` (not on chain). */
export function readTransactionInfo(body: unknown): TransactionInfoRecord | null {
  if (!isRecord(body)) throw malformed('a transaction info');
  if (Object.keys(body).length === 0) return null;
  const { id, receipt = {}, log = [], result } = body;
  if (typeof id !== 'string' || !HEX_32.test(id) || !isRecord(receipt) || !Array.isArray(log)) {
    throw malformed('a transaction info');
  }
  const receiptResult = receipt.result;
  if (receiptResult !== undefined && typeof receiptResult !== 'string') throw malformed('a transaction info');
  if (result !== undefined && result !== 'SUCCESS' && result !== 'FAILED') throw malformed('a transaction info');
  return {
    txid: id.toLowerCase(),
    blockNumber: int(body.blockNumber, 'a transaction info', false),
    blockTimeMs: int(body.blockTimeStamp, 'a transaction info', false),
    failed: result === 'FAILED',
    receiptResult: receiptResult ?? null,
    feeSun: BigInt(int(body.fee, 'a transaction info')),
    logs: log.map(readLog),
  };
}

/** `TransactionInfoList` as an array; `{}` (java-tron's answer for `num <= 0`) holds none. */
export function readTransactionInfoList(body: unknown): TransactionInfoRecord[] {
  if (isRecord(body) && Object.keys(body).length === 0) return [];
  if (!Array.isArray(body)) throw malformed('a transaction info list');
  return body.map((item) => {
    const info = readTransactionInfo(item);
    if (info === null) throw malformed('a transaction info list');
    return info;
  });
}

/** broadcasthex's `{result, code, message, transaction, txid}` (the message is UTF-8 text there). */
export function readBroadcast(body: unknown): BroadcastOutcome {
  if (!isRecord(body) || typeof body.txid !== 'string' || !HEX_32.test(body.txid)) throw malformed('a broadcast');
  const txid = body.txid.toLowerCase();
  const code = typeof body.code === 'string' ? body.code : 'OTHER_ERROR';
  if (body.result === true) return { kind: 'accepted', txid };
  if (code === 'DUP_TRANSACTION_ERROR') return { kind: 'duplicate', txid };
  return { kind: 'rejected', txid, code, message: typeof body.message === 'string' ? body.message : '' };
}

/**
 * triggerconstantcontract's `TransactionExtention` for a call returning one uint256. Refused: `result.result` not
 * true (an unknown contract, constant calls disabled), a reverted call (`transaction.ret[0].ret` FAILED), or no
 * 32-byte `constant_result`.
 */
export function readUint256Result(body: unknown): bigint {
  if (!isRecord(body) || !isRecord(body.result)) throw malformed('a constant call');
  const { result, code, message } = body.result;
  if (result !== true) {
    throw new TronNodeError('refused', `the node refused the constant call: ${String(code)} ${String(message)}`);
  }
  const ret = isRecord(body.transaction) && Array.isArray(body.transaction.ret) ? body.transaction.ret[0] : undefined;
  if (isRecord(ret) && ret.ret === 'FAILED') throw new TronNodeError('refused', 'the constant call reverted');
  const [word] = Array.isArray(body.constant_result) ? body.constant_result : [];
  const value = typeof word === 'string' ? decodeUint256(word) : null;
  if (value === null) throw malformed('a constant call');
  return value;
}
