/**
 * The tron-chain port (SPEC 1.10, DESIGN.md 11, issue 27; research/payments.md 4.2, 5.1, 8.1): what the USDT-TRC20
 * deposit watcher and the withdrawal pipeline need from a TRON node. Deposits are read only from solidified blocks
 * (19 of 27 producers built on them: irreversible, so no reorg handling); withdrawals are built and signed
 * elsewhere (src/lib/tron) and only their signed bytes pass through here.
 *
 * Addresses are base58check (`T…`); amounts are integers in the token's base unit (USDT: 6 decimals, so 1 unit =
 * 1 micro-USD) and TRX fees in sun, all bigint; times are the chain's block times in ms, never the wall clock.
 */

/** A block as the chain names it: what TAPOS references and what the watcher's cursor and expiry checks read. */
export interface ChainBlock {
  number: number;
  /** The block id, 64 lower-case hex digits (8-byte number, then 24 bytes of the header hash). */
  id: string;
  timestampMs: number;
}

/** One `Transfer` log of the asked-for contract in a successful transaction of a solidified block. */
export interface Trc20TransferEvent {
  txid: string;
  /** The log's position among the transaction's logs: with txid, the deposit's unique key (8.4). */
  logIndex: number;
  from: string;
  to: string;
  amount: bigint;
  blockNumber: number;
  blockTimeMs: number;
}

/**
 * What the node said to a broadcast. `accepted` only means it entered the node's pool (5.1 step 7): the outcome is
 * read later with `transactionInfo`. `duplicate` means the node has already seen these bytes: verify by txid
 * before anything else. `rejected` carries java-tron's code (`SIGERROR`, `TAPOS_ERROR`,
 * `TRANSACTION_EXPIRATION_ERROR`, `CONTRACT_VALIDATE_ERROR`, `SERVER_BUSY`, …) and message.
 */
export type BroadcastOutcome =
  | { kind: 'accepted'; txid: string }
  | { kind: 'duplicate'; txid: string }
  | { kind: 'rejected'; txid: string; code: string; message: string };

/**
 * A transaction as a node knows it. `absent`: not in any block the node (or, with `solid`, its solidified part)
 * has. `in_block`: executed; `FAILED` covers a reverted or out-of-energy call (`receiptResult` says which), whose
 * fee is still burned.
 */
export type TransactionState =
  | { kind: 'absent' }
  | {
      kind: 'in_block';
      status: 'SUCCESS' | 'FAILED';
      /** java-tron's `receipt.result` (`SUCCESS`, `REVERT`, `OUT_OF_ENERGY`, …), or null when it has none. */
      receiptResult: string | null;
      blockNumber: number;
      blockTimeMs: number;
      /** TRX burned for the transaction, in sun. */
      feeSun: bigint;
    };

export interface TronChain {
  /** The newest solidified block (`/walletsolidity/getnowblock`): the watcher scans up to it. */
  solidHead(): Promise<ChainBlock>;
  /**
   * The `Transfer` logs emitted by exactly `contract` in the transactions of solidified block `blockNumber` whose
   * receipt is SUCCESS, in block order (`/walletsolidity/gettransactioninfobyblocknum`). Zero-value transfers are
   * included: ignoring them is the caller's rule. A block above `solidHead()` reads as empty: ask only up to it.
   */
  trc20TransfersInBlock(blockNumber: number, contract: string): Promise<Trc20TransferEvent[]>;
  /** The full node's newest block (`/wallet/getnowblock`), for a new transaction's TAPOS fields. */
  referenceBlock(): Promise<ChainBlock>;
  /** Sends signed transaction bytes (hex) as they are (`/wallet/broadcasthex`); the same bytes may be sent again. */
  broadcastHex(transactionHex: string): Promise<BroadcastOutcome>;
  /** A transaction's execution as the full node (`solid: false`) or its solidified part (`solid: true`) knows it. */
  transactionInfo(txid: string, options: { solid: boolean }): Promise<TransactionState>;
  /**
   * A holder's balance of a TRC-20 contract (`balanceOf` by `triggerconstantcontract`), as of the full node's head or
   * the solidified head: the hot wallet's funds before a withdrawal is signed, custody reconciliation
   * (research/payments.md 5.3). A contract the node does not know is `refused`.
   */
  trc20Balance(holder: string, contract: string, options: { solid: boolean }): Promise<bigint>;
}

/**
 * The node could not be used. `unreachable`: no answer in time, a network failure, a 5xx, or a rate limit: try
 * again later. `refused`: it answered, but not usably (an `{"Error": …}` body, a 4xx, a lite node's text, a shape
 * java-tron does not send). Never a client's mistake: callers retry or alert, and an HTTP layer answers 503.
 */
export class TronNodeError extends Error {
  readonly kind: 'unreachable' | 'refused';

  constructor(kind: 'unreachable' | 'refused', message: string) {
    super(message);
    this.name = 'TronNodeError';
    this.kind = kind;
  }
}
