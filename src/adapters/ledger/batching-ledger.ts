import {
  assertAmount,
  assertLot,
  assertPayee,
  assertTtl,
  type Entry,
  isTransfer,
  toHold,
  toTransfer,
} from './entries.js';
import type {
  Balance,
  CaptureInput,
  CaptureOutcome,
  CreditInput,
  DebitInput,
  ExtendOutcome,
  Hold,
  HoldInput,
  HoldOutcome,
  Ledger,
  Lot,
  Micros,
  RefundInput,
  ReleaseOutcome,
  SettleInput,
  SettleOutcome,
  Transfer,
  TransferOutcome,
} from './index.js';
import type { LedgerOp, OpOutcome } from './operations.js';

/** One operation's result inside a batch: its outcome, or the error it alone threw. */
export type OpResult = { ok: true; outcome: OpOutcome } | { ok: false; error: unknown };

/** A storage engine (README.md "Shape"): one write per batch, and the reads. */
export interface LedgerEngine {
  /**
   * Applies the operations in order, in one transaction (one round trip where there is a network), and answers
   * one result per operation. Throws when the batch failed as a whole: then none of it was applied. An engine with
   * a network calls `handedOff` once the batch is written to the database's connection (README.md "Handed off").
   */
  apply(ops: readonly LedgerOp[], handedOff: () => void): Promise<OpResult[]>;
  /**
   * When a write starts with nothing in flight (README.md "Group commit"). `end-of-turn`: once the event-loop turn
   * is over, so the calls of every I/O callback of that turn go together (an engine in this process, whose write is
   * done before the next callback could join it). `at-once`: as soon as the calling code's microtasks have run (an
   * engine with a network: calls that arrive during its round trip go together in the next write anyway, and a turn
   * of waiting was a turn added to every answer that waits for its charge).
   */
  readonly firstWrite: 'end-of-turn' | 'at-once';
  /** Expires up to `limit` due holds in a transaction of their own; returns how many. */
  expire(nowMs: number, limit: number): Promise<number>;
  entry(id: string): Promise<Entry | null>;
  balance(accountId: string): Promise<Balance>;
  listLots(accountId: string): Promise<Lot[]>;
  postedSpend(accountId: string, range: { fromMs?: number; toMs?: number }): Promise<Micros>;
  sumOfAllBalances(): Promise<Micros>;
}

export interface BatchingOptions {
  /** Most operations per write (a bound on one transaction's size and one round trip's payload). */
  maxBatch?: number;
  /** Called after every write with its size and duration (the batch-size metric). */
  onBatch?: (operations: number, ms: number) => void;
}

interface Queued {
  op: LedgerOp;
  resolve: (outcome: OpOutcome) => void;
  reject: (err: unknown) => void;
  handedOff?: () => void;
}

/** Pending holds expired per sweeper transaction: keeps each one (and its locks) short. */
const EXPIRY_BATCH = 500;

// Captured at load: a test that fakes timers must not stall the ledger's own scheduling.
const SCHEDULERS = { 'end-of-turn': globalThis.setImmediate, 'at-once': globalThis.queueMicrotask } as const;

/**
 * The ledger port over any engine, with group commit (README.md "Group commit"): calls are validated here (a
 * bad amount throws at the call, never inside a batch), queued, and written together. When nothing is being
 * written the queue is flushed when the engine says (`firstWrite`); while a write is in flight, arriving operations
 * wait for the next one. A batch that fails as a whole is retried one operation per write, so a
 * poisoned operation fails alone.
 */
export class BatchingLedger implements Ledger {
  private queue: Queued[] = [];
  private writing = false;
  private scheduled = false;
  private idle: (() => void)[] = [];
  private readonly maxBatch: number;

  constructor(
    private readonly engine: LedgerEngine,
    private readonly options: BatchingOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 256;
  }

  hold(input: HoldInput): Promise<HoldOutcome> {
    assertAmount('amountMicros', input.amountMicros);
    assertTtl(input.ttlMs);
    const { id, accountId, amountMicros, nowMs } = input;
    return this.submit({
      op: 'hold',
      id,
      accountId,
      amountMicros,
      nowMs,
      expiresAtMs: nowMs + input.ttlMs,
    }) as Promise<HoldOutcome>;
  }

  settle(input: SettleInput): Promise<SettleOutcome> {
    assertAmount('amountMicros', input.amountMicros, true);
    const { holdId, amountMicros, nowMs } = input;
    return this.submit({
      op: 'settle',
      holdId,
      amountMicros,
      nowMs,
      usage: input.usage ?? null,
    }) as Promise<SettleOutcome>;
  }

  capture(input: CaptureInput): Promise<CaptureOutcome> {
    assertAmount('amountMicros', input.amountMicros, true);
    assertAmount('capMicros', input.capMicros, true);
    // The account charged is the hold's: the operation checks that the payee is another one (entries.ts assertPayee).
    if (input.payee) assertPayee(input.payee);
    const { id, holdId, amountMicros, capMicros, nowMs, usage = null, payee = null } = input;
    return this.submit(
      { op: 'capture', id, holdId, amountMicros, capMicros, nowMs, usage, payee },
      input.onHandedOff,
    ) as Promise<CaptureOutcome>;
  }

  release(input: { holdId: string; nowMs: number }): Promise<ReleaseOutcome> {
    return this.submit({ op: 'release', ...input }) as Promise<ReleaseOutcome>;
  }

  extend(input: { holdId: string; expiresAtMs: number; nowMs: number }): Promise<ExtendOutcome> {
    if (!Number.isSafeInteger(input.expiresAtMs))
      throw new RangeError(`ledger: expiresAtMs must be an integer (got ${input.expiresAtMs})`);
    return this.submit({ op: 'extend', ...input }) as Promise<ExtendOutcome>;
  }

  async expireHolds(nowMs: number): Promise<number> {
    let total = 0;
    for (;;) {
      const expired = await this.engine.expire(nowMs, EXPIRY_BATCH);
      total += expired;
      if (expired < EXPIRY_BATCH) return total;
    }
  }

  debit(input: DebitInput): Promise<TransferOutcome> {
    assertAmount('amountMicros', input.amountMicros, true);
    if (input.payee) assertPayee(input.payee, input.accountId);
    const { id, accountId, amountMicros, nowMs, memo = '', usage = null, allowShortfall = false, payee = null } = input;
    return this.submit({
      op: 'debit',
      id,
      accountId,
      amountMicros,
      nowMs,
      memo,
      usage,
      allowShortfall,
      payee,
    }) as Promise<TransferOutcome>;
  }

  credit(input: CreditInput): Promise<TransferOutcome> {
    assertAmount('amountMicros', input.amountMicros);
    assertLot(input.lot);
    const { id, accountId, amountMicros, nowMs, lot } = input;
    return this.submit({
      op: 'credit',
      id,
      accountId,
      amountMicros,
      nowMs,
      memo: input.memo ?? '',
      lot,
    }) as Promise<TransferOutcome>;
  }

  refund(input: RefundInput): Promise<TransferOutcome> {
    assertAmount('amountMicros', input.amountMicros);
    const { id, refundOf, amountMicros, nowMs } = input;
    return this.submit({
      op: 'refund',
      id,
      refundOf,
      amountMicros,
      nowMs,
      memo: input.memo ?? '',
    }) as Promise<TransferOutcome>;
  }

  getBalance(accountId: string): Promise<Balance> {
    return this.engine.balance(accountId);
  }

  async getHold(holdId: string): Promise<Hold | null> {
    const e = await this.engine.entry(holdId);
    return e && e.kind === 'hold' ? toHold(e) : null;
  }

  async getTransfer(id: string): Promise<Transfer | null> {
    const e = await this.engine.entry(id);
    return e && isTransfer(e) ? toTransfer(e) : null;
  }

  listLots(accountId: string): Promise<Lot[]> {
    return this.engine.listLots(accountId);
  }

  postedSpend(accountId: string, range: { fromMs?: number; toMs?: number } = {}): Promise<Micros> {
    return this.engine.postedSpend(accountId, range);
  }

  sumOfAllBalances(): Promise<Micros> {
    return this.engine.sumOfAllBalances();
  }

  drain(): Promise<void> {
    if (!this.writing && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private submit(op: LedgerOp, handedOff?: () => void): Promise<OpOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ op, resolve, reject, handedOff });
      if (this.writing || this.scheduled) return;
      this.scheduled = true;
      SCHEDULERS[this.engine.firstWrite](() => void this.flush());
    });
  }

  /** Writes batches until the queue is empty; operations that arrive meanwhile join the next batch. */
  private async flush(): Promise<void> {
    this.scheduled = false;
    if (this.writing) return;
    this.writing = true;
    try {
      while (this.queue.length > 0) await this.write(this.queue.splice(0, this.maxBatch));
    } finally {
      this.writing = false;
      for (const resolve of this.idle.splice(0)) resolve();
    }
  }

  private async write(batch: Queued[]): Promise<void> {
    const startedAt = performance.now();
    let results: OpResult[];
    try {
      results = await this.engine.apply(
        batch.map((q) => q.op),
        () => batch.forEach((q) => q.handedOff?.()),
      );
    } catch (err) {
      if (batch.length === 1) batch[0]!.reject(err);
      // Nothing of the batch was applied: one write per operation finds the one that cannot be (README.md).
      else for (const queued of batch) await this.write([queued]);
      return;
    }
    batch.forEach((queued, i) => {
      const result = results[i]!;
      if (result.ok) queued.resolve(result.outcome);
      else queued.reject(result.error);
    });
    this.options.onBatch?.(batch.length, performance.now() - startedAt);
  }
}
