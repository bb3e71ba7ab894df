/**
 * java-tron's `TransactionInfo` (docs/api/http/block-and-tx-query/gettransactioninfobyid.md) reduced to what the
 * port reads, and the two readings both adapters share, so the HTTP adapter and the in-memory twin cannot drift:
 * which logs are deposits, and what state a transaction is in.
 */
import { decodeTransferLog, type EventLog } from '../../lib/tron/trc20.js';
import type { TransactionState, Trc20TransferEvent } from './index.js';

export interface TransactionInfoRecord {
  /** `id`. */
  txid: string;
  blockNumber: number;
  /** `blockTimeStamp`. */
  blockTimeMs: number;
  /** The top-level `result` is `FAILED` (java-tron omits it on success). */
  failed: boolean;
  /** `receipt.result`: `SUCCESS`, `REVERT`, `OUT_OF_ENERGY`, …; null when absent (not a contract call). */
  receiptResult: string | null;
  /** `fee`, in sun (absent means 0). */
  feeSun: bigint;
  /** `log`, in order: a log's index here is its index in the deposit key. */
  logs: EventLog[];
}

/**
 * The `Transfer` logs emitted by exactly `contract` in transactions whose receipt is SUCCESS (research/payments.md
 * 4.2: the docs warn to read logs only of successful transactions, and fake tokens emit identical logs).
 */
export function transferEvents(infos: readonly TransactionInfoRecord[], contract: string): Trc20TransferEvent[] {
  return infos.flatMap((info) => {
    if (info.failed || info.receiptResult !== 'SUCCESS') return [];
    return info.logs.flatMap((log, logIndex) => {
      const transfer = decodeTransferLog(log);
      if (transfer === null || transfer.contract !== contract) return [];
      const { from, to, amount } = transfer;
      return [
        { txid: info.txid, logIndex, from, to, amount, blockNumber: info.blockNumber, blockTimeMs: info.blockTimeMs },
      ];
    });
  });
}

/** A transaction's state from its info (null: the node has none). Any receipt other than SUCCESS is a failure. */
export function transactionState(info: TransactionInfoRecord | null): TransactionState {
  if (info === null) return { kind: 'absent' };
  const failed = info.failed || (info.receiptResult !== null && info.receiptResult !== 'SUCCESS');
  return {
    kind: 'in_block',
    status: failed ? 'FAILED' : 'SUCCESS',
    receiptResult: info.receiptResult,
    blockNumber: info.blockNumber,
    blockTimeMs: info.blockTimeMs,
    feeSun: info.feeSun,
  };
}
