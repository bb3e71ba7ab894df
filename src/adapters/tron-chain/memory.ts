/**
 * The in-memory twin of the tron-chain port: a small TRON chain holding one TRC-20 token's balances. Tests drive it
 * (`mint`, `addTransfers`, `mineBlock`, `solidify`); it accepts broadcasts with java-tron's checks (signature
 * against the owner, TAPOS, expiry, duplicates; memory-broadcast.ts), executes pooled transfers when a block is
 * made, and reports deposits only from solidified blocks. The fake java-tron node (test/fakes/java-tron.ts) serves
 * this same chain over java-tron's HTTP API, so one conformance suite holds both adapters to one behaviour.
 *
 * Time is block time: block n+1 is `blockIntervalMs` after block n, never the wall clock.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { isTronAddress } from '../../lib/tron/address.js';
import { type DecodedTransaction, decodeSignedTransaction } from '../../lib/tron/transaction.js';
import { decodeTransferCall, type Trc20Transfer, transferLog } from '../../lib/tron/trc20.js';
import {
  type BroadcastOutcome,
  type ChainBlock,
  type TransactionState,
  type Trc20TransferEvent,
  type TronChain,
  TronNodeError,
} from './index.js';
import { checkBroadcast } from './memory-broadcast.js';
import { type TransactionInfoRecord, transactionState, transferEvents } from './transaction-infos.js';

export interface MemoryTronChainOptions {
  /** The token contract whose balances the chain keeps (USDT's address in production configuration). */
  token: string;
  /** The first block's number; a real chain's head is far from 0 (and java-tron's JSON omits a 0). */
  firstBlockNumber?: number;
  firstBlockTimeMs?: number;
  /** TRON makes a block every 3 s. */
  blockIntervalMs?: number;
  /** TRX burned by each contract call, in sun. */
  callFeeSun?: bigint;
}

export interface StoredBlock extends ChainBlock {
  parentId: string;
  infos: TransactionInfoRecord[];
  /** The token's balances after this block (never mutated: a change makes a new map). */
  balances: ReadonlyMap<string, bigint>;
}

/** A transaction waiting for the next block: a broadcast call, or logs a test injects. */
type Pooled =
  | { kind: 'call'; txid: string; owner: string; data: Uint8Array }
  | { kind: 'injected'; txid: string; transfers: Trc20Transfer[]; receiptResult: string };

export class MemoryTronChain implements TronChain {
  readonly token: string;
  readonly #blocks = new Map<number, StoredBlock>();
  readonly #infos = new Map<string, TransactionInfoRecord>();
  #pool: Pooled[] = [];
  #head: StoredBlock;
  #solid: StoredBlock;
  readonly #intervalMs: number;
  /** TRX burned by each contract call, in sun. */
  readonly callFeeSun: bigint;
  #injected = 0;

  constructor(options: MemoryTronChainOptions) {
    if (!isTronAddress(options.token)) throw new Error('the token must be a base58check TRON address');
    this.token = options.token;
    this.#intervalMs = options.blockIntervalMs ?? 3_000;
    this.callFeeSun = options.callFeeSun ?? 0n;
    const number = options.firstBlockNumber ?? 1_000;
    const timestampMs = options.firstBlockTimeMs ?? 1_777_000_000_000;
    this.#head = this.#store({ number, parentId: '00'.repeat(32), timestampMs, infos: [], balances: new Map() });
    this.#solid = this.#head;
  }

  // ---- the port ----

  async solidHead(): Promise<ChainBlock> {
    return header(this.#solid);
  }

  async trc20TransfersInBlock(blockNumber: number, contract: string): Promise<Trc20TransferEvent[]> {
    return transferEvents(this.solidInfosInBlock(blockNumber), contract);
  }

  async referenceBlock(): Promise<ChainBlock> {
    return header(this.#head);
  }

  async broadcastHex(transactionHex: string): Promise<BroadcastOutcome> {
    const result = this.broadcast(transactionHex);
    if ('error' in result) throw new TronNodeError('refused', result.error);
    return result.outcome;
  }

  async transactionInfo(txid: string, options: { solid: boolean }): Promise<TransactionState> {
    return transactionState(this.info(txid, options.solid));
  }

  async trc20Balance(holder: string, contract: string, options: { solid: boolean }): Promise<bigint> {
    // java-tron: CONTRACT_VALIDATE_ERROR "Smart contract is not exist." (triggerconstantcontract.md).
    if (contract !== this.token) throw new TronNodeError('refused', 'Smart contract is not exist.');
    return (options.solid ? this.#solid : this.#head).balances.get(holder) ?? 0n;
  }

  // ---- what the fake node serves (java-tron's views of the same chain) ----

  get head(): StoredBlock {
    return this.#head;
  }

  get solid(): StoredBlock {
    return this.#solid;
  }

  block(number: number): StoredBlock | undefined {
    return this.#blocks.get(number);
  }

  /** The infos of a solidified block; none for a block above the solidified head (java-tron's solidity view). */
  solidInfosInBlock(blockNumber: number): TransactionInfoRecord[] {
    return blockNumber > this.#solid.number ? [] : (this.#blocks.get(blockNumber)?.infos ?? []);
  }

  info(txid: string, solid: boolean): TransactionInfoRecord | null {
    const info = this.#infos.get(txid.toLowerCase());
    return info === undefined || (solid && info.blockNumber > this.#solid.number) ? null : info;
  }

  /** Decodes and checks a broadcast; `error` is what java-tron answers as `{"Error": …}` (not a transaction). */
  broadcast(transactionHex: string): { outcome: BroadcastOutcome; decoded: DecodedTransaction } | { error: string } {
    let decoded: DecodedTransaction;
    try {
      if (!/^([0-9a-fA-F]{2})*$/.test(transactionHex)) throw new RangeError('not valid hex');
      decoded = decodeSignedTransaction(hexToBytes(transactionHex.toLowerCase()));
    } catch (error) {
      return { error: `class com.google.protobuf.InvalidProtocolBufferException : ${(error as Error).message}` };
    }
    const { txid } = decoded;
    const view = {
      head: this.#head,
      nextSlotMs: this.#head.timestampMs + this.#intervalMs,
      block: (n: number) => this.#blocks.get(n),
      seen: (id: string) => this.#infos.has(id) || this.#pool.some((p) => p.txid === id),
      token: this.token,
    };
    const rejection = checkBroadcast(view, decoded);
    if (rejection !== null) {
      const kind = rejection.code === 'DUP_TRANSACTION_ERROR' ? 'duplicate' : 'rejected';
      return { decoded, outcome: kind === 'duplicate' ? { kind, txid } : { kind, txid, ...rejection } };
    }
    const [call] = decoded.contracts;
    this.#pool.push({ kind: 'call', txid, owner: call?.owner ?? '', data: call?.data ?? new Uint8Array() });
    return { decoded, outcome: { kind: 'accepted', txid } };
  }

  // ---- test controls ----

  /** Gives an address tokens out of thin air (the test's treasury), as of the head block. */
  mint(address: string, amount: bigint): void {
    if (!isTronAddress(address) || amount < 0n) throw new Error('mint needs an address and a non-negative amount');
    const balances = new Map(this.#head.balances);
    balances.set(address, (balances.get(address) ?? 0n) + amount);
    this.#head.balances = balances;
  }

  /**
   * One transaction for the next block carrying these `Transfer` logs (any contract: the token, a fake one; zero
   * values; several in one transaction, as a contract's batch payout emits) with this receipt. A SUCCESS receipt
   * moves the token's balances and needs the senders to hold them; any other moves nothing but still carries the
   * logs. Returns the txid.
   */
  addTransfers(transfers: Trc20Transfer[], receiptResult = 'SUCCESS'): string {
    this.#injected += 1;
    const txid = bytesToHex(sha256(utf8ToBytes(`injected:${this.#head.id}:${this.#injected}`)));
    this.#pool.push({ kind: 'injected', txid, transfers, receiptResult });
    return txid;
  }

  /** Forgets a pooled transaction, as a node that accepted one and lost it does (it may be broadcast again). */
  dropPending(txid: string): boolean {
    const before = this.#pool.length;
    this.#pool = this.#pool.filter((p) => p.txid !== txid);
    return this.#pool.length < before;
  }

  /** Makes the next block from everything pooled, in arrival order; returns it. */
  mineBlock(): ChainBlock {
    const number = this.#head.number + 1;
    const timestampMs = this.#head.timestampMs + this.#intervalMs;
    const balances = new Map(this.#head.balances);
    const infos = this.#pool.map((p) => this.#execute(p, balances, number, timestampMs));
    this.#pool = [];
    // An empty block shares its parent's balances: 65,536 empty blocks (a TAPOS test) stay cheap.
    const after = infos.length === 0 ? this.#head.balances : balances;
    this.#head = this.#store({ number, parentId: this.#head.id, timestampMs, infos, balances: after });
    return header(this.#head);
  }

  mineBlocks(count: number): ChainBlock {
    for (let i = 0; i < count; i += 1) this.mineBlock();
    return header(this.#head);
  }

  /** Solidifies every block up to `upTo` (default: the head). */
  solidify(upTo = this.#head.number): ChainBlock {
    const block = this.#blocks.get(Math.min(upTo, this.#head.number));
    if (block !== undefined && block.number > this.#solid.number) this.#solid = block;
    return header(this.#solid);
  }

  #execute(
    pooled: Pooled,
    balances: Map<string, bigint>,
    blockNumber: number,
    blockTimeMs: number,
  ): TransactionInfoRecord {
    const base = { txid: pooled.txid, blockNumber, blockTimeMs, feeSun: this.callFeeSun };
    if (pooled.kind === 'injected') {
      const success = pooled.receiptResult === 'SUCCESS';
      if (success && !this.#move(pooled.transfers, balances))
        throw new Error('an injected transfer’s sender holds too little: mint first');
      // java-tron drops a failed call's logs; these keep them, so that a reader's receipt filter is tested.
      return {
        ...base,
        failed: !success,
        receiptResult: pooled.receiptResult,
        logs: pooled.transfers.map(transferLog),
      };
    }
    // A call the token does not understand, or one its sender cannot cover, reverts (the fee is still burned).
    const call = decodeTransferCall(pooled.data);
    const transfer =
      call === null ? null : { contract: this.token, from: pooled.owner, to: call.to, amount: call.amount };
    const moved = transfer !== null && this.#move([transfer], balances);
    const logs = moved ? [transferLog(transfer)] : [];
    return { ...base, failed: !moved, receiptResult: moved ? 'SUCCESS' : 'REVERT', logs };
  }

  /** Applies the token's transfers when every sender can pay (other contracts' logs move nothing); all or none. */
  #move(transfers: Trc20Transfer[], balances: Map<string, bigint>): boolean {
    const next = new Map(balances);
    for (const { contract, from, to, amount } of transfers) {
      if (contract !== this.token) continue;
      const left = (next.get(from) ?? 0n) - amount;
      if (left < 0n) return false;
      next.set(from, left);
      next.set(to, (next.get(to) ?? 0n) + amount);
    }
    for (const [address, amount] of next) balances.set(address, amount);
    return true;
  }

  #store(block: Omit<StoredBlock, 'id'>): StoredBlock {
    const { number, parentId, timestampMs, infos } = block;
    // java-tron's block id: the 8-byte number, then the last 24 bytes of the header's hash.
    const hash = bytesToHex(sha256(utf8ToBytes(`${parentId}:${number}:${timestampMs}:${infos.map((i) => i.txid)}`)));
    const stored = { ...block, id: number.toString(16).padStart(16, '0') + hash.slice(16) };
    this.#blocks.set(number, stored);
    for (const info of infos) this.#infos.set(info.txid, info);
    return stored;
  }
}

function header(block: StoredBlock): ChainBlock {
  return { number: block.number, id: block.id, timestampMs: block.timestampMs };
}
