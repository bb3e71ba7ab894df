import { lotDeltas, planConsumption, planRestore } from './allocation-plan.js';
import {
  assertAmount,
  assertLot,
  assertTtl,
  decideRelease,
  decideSettle,
  expiredAnswer,
  isRefundable,
  isSameRequest,
  isTransfer,
  refundableMicros,
  toHold,
  toTransfer,
  newEntry,
  type Entry,
  type ReplayKey,
} from './entries.js';
import {
  SYSTEM_ACCOUNTS,
  type Allocation,
  type Balance,
  type Hold,
  type HoldOutcome,
  type Ledger,
  type Lot,
  type LotSpec,
  type Micros,
  type ReleaseOutcome,
  type SettleOutcome,
  type Transfer,
  type TransferOutcome,
} from './index.js';

interface Cell {
  available: Micros;
  held: Micros;
}

interface StoredLot extends Lot {
  seq: number;
}

const copyLot = ({ seq: _seq, ...lot }: StoredLot): Lot => ({ ...lot });
const spendingOrder = (a: StoredLot, b: StoredLot) => a.createdAtMs - b.createdAtMs || a.seq - b.seq;

/**
 * In-process twin of the SQL ledger (README.md), for tests and single-process demos. Every method does all of
 * its work synchronously (no await), so it is atomic in JS: concurrent calls interleave only between calls,
 * as SQL transactions serialise. Decisions and lot plans are the shared ones (entries.ts, allocation-plan.ts);
 * records are copied out, so callers cannot reach internal state.
 */
export class MemoryLedger implements Ledger {
  private readonly balances = new Map<string, Cell>();
  private readonly entries = new Map<string, Entry>();
  private readonly entriesByAccount = new Map<string, Entry[]>();
  private readonly pendingHolds = new Set<Entry>();
  private readonly lotsById = new Map<string, StoredLot>();
  private readonly lotsByAccount = new Map<string, StoredLot[]>();
  private lotSeq = 0;

  async hold(input: { id: string; accountId: string; amountMicros: Micros; nowMs: number; ttlMs: number }): Promise<HoldOutcome> {
    assertAmount('amountMicros', input.amountMicros);
    assertTtl(input.ttlMs);
    const existing = this.entries.get(input.id);
    if (existing) {
      const same = isSameRequest(existing, { kind: 'hold', accountId: input.accountId, amountMicros: input.amountMicros }, null);
      return same ? { ok: true, hold: toHold(existing), replayed: true } : { ok: false, reason: 'idempotency_conflict' };
    }
    const cell = this.balances.get(input.accountId);
    if (!cell || cell.available < input.amountMicros) {
      return { ok: false, reason: 'insufficient_balance', availableMicros: cell?.available ?? 0n };
    }
    cell.available -= input.amountMicros;
    cell.held += input.amountMicros;
    const e = this.record(
      newEntry(input, 'hold', { status: 'pending', postedMicros: null, expiresAtMs: input.nowMs + input.ttlMs, postedAtMs: null }),
    );
    this.pendingHolds.add(e);
    return { ok: true, hold: toHold(e), replayed: false };
  }

  async settle(input: { holdId: string; amountMicros: Micros; nowMs: number }): Promise<SettleOutcome> {
    assertAmount('amountMicros', input.amountMicros, true);
    const decision = decideSettle(this.entries.get(input.holdId), input.amountMicros, input.nowMs);
    if (decision.act === 'answer') return decision.outcome;
    const e = decision.entry;
    if (decision.act === 'expire') {
      this.resolve(e, 'expired', input.nowMs);
      return expiredAnswer();
    }
    const posted = input.amountMicros;
    // Plan before any write, so a (corrupt) shortage of lots throws with nothing changed.
    const allocations = posted > 0n ? planConsumption(e.accountId, this.lotsWithMoney(e.accountId), posted) : [];
    this.resolve(e, 'posted', input.nowMs);
    this.cell(e.accountId).available -= posted;
    this.applyLots(allocations);
    this.cell(SYSTEM_ACCOUNTS.revenue).available += posted;
    Object.assign(e, { postedMicros: posted, spendMicros: posted, postedAtMs: input.nowMs, allocations });
    return { ok: true, hold: toHold(e), replayed: false };
  }

  async release(input: { holdId: string; nowMs: number }): Promise<ReleaseOutcome> {
    const decision = decideRelease(this.entries.get(input.holdId), input.nowMs);
    if (decision.act === 'answer') return decision.outcome;
    if (decision.act === 'expire') {
      this.resolve(decision.entry, 'expired', input.nowMs);
      return expiredAnswer();
    }
    this.resolve(decision.entry, 'voided', input.nowMs);
    return { ok: true, hold: toHold(decision.entry), replayed: false };
  }

  async expireHolds(nowMs: number): Promise<number> {
    let count = 0;
    for (const e of [...this.pendingHolds]) {
      if (e.expiresAtMs !== null && e.expiresAtMs <= nowMs) {
        this.resolve(e, 'expired', nowMs);
        count++;
      }
    }
    return count;
  }

  async debit(input: { id: string; accountId: string; amountMicros: Micros; nowMs: number; memo?: string }): Promise<TransferOutcome> {
    assertAmount('amountMicros', input.amountMicros);
    const existing = this.entries.get(input.id);
    if (existing) return this.replayTransfer(existing, { kind: 'debit', accountId: input.accountId, amountMicros: input.amountMicros });
    const cell = this.balances.get(input.accountId);
    if (!cell || cell.available < input.amountMicros) {
      return { ok: false, reason: 'insufficient_balance', availableMicros: cell?.available ?? 0n };
    }
    const allocations = planConsumption(input.accountId, this.lotsWithMoney(input.accountId), input.amountMicros);
    cell.available -= input.amountMicros;
    this.applyLots(allocations);
    this.cell(SYSTEM_ACCOUNTS.revenue).available += input.amountMicros;
    const e = this.record(newEntry(input, 'debit', { spendMicros: input.amountMicros, allocations }));
    return { ok: true, transfer: toTransfer({ ...e, kind: 'debit' }), replayed: false };
  }

  async credit(input: { id: string; accountId: string; amountMicros: Micros; lot: LotSpec; nowMs: number; memo?: string }): Promise<TransferOutcome> {
    assertAmount('amountMicros', input.amountMicros);
    assertLot(input.lot);
    const existing = this.entries.get(input.id);
    if (existing) return this.replayTransfer(existing, { kind: 'credit', accountId: input.accountId, amountMicros: input.amountMicros, lot: input.lot });
    this.cell(input.accountId).available += input.amountMicros;
    this.addLot({
      id: input.id, // a credit's lot carries the credit's id (README.md)
      accountId: input.accountId,
      currency: input.lot.currency,
      amountMicros: input.amountMicros,
      remainingMicros: input.amountMicros,
      fxRateRubMicro: input.lot.fxRateRubMicro,
      createdAtMs: input.nowMs,
      seq: ++this.lotSeq,
    });
    this.cell(SYSTEM_ACCOUNTS.deposits).available -= input.amountMicros;
    const e = this.record(newEntry(input, 'credit'));
    return { ok: true, transfer: toTransfer({ ...e, kind: 'credit' }), replayed: false };
  }

  async refund(input: { id: string; refundOf: string; amountMicros: Micros; nowMs: number; memo?: string }): Promise<TransferOutcome> {
    assertAmount('amountMicros', input.amountMicros);
    const target = this.entries.get(input.refundOf);
    if (!isRefundable(target)) return { ok: false, reason: 'transfer_not_found' };
    const existing = this.entries.get(input.id);
    if (existing) return this.replayTransfer(existing, { kind: 'refund', refundOf: input.refundOf, amountMicros: input.amountMicros });
    if (input.amountMicros > refundableMicros(target)) return { ok: false, reason: 'exceeds_refundable' };
    const earlier = this.account(target.accountId)
      .filter((r) => r.kind === 'refund' && r.refundOf === target.id)
      .flatMap((r) => r.allocations);
    const allocations = planRestore(target.allocations, earlier, input.amountMicros);
    target.refundedMicros += input.amountMicros;
    this.cell(target.accountId).available += input.amountMicros;
    this.applyLots(allocations);
    this.cell(SYSTEM_ACCOUNTS.revenue).available -= input.amountMicros;
    const refund = newEntry({ ...input, accountId: target.accountId }, 'refund', { refundOf: target.id, spendMicros: -input.amountMicros, allocations });
    const e = this.record(refund);
    return { ok: true, transfer: toTransfer({ ...e, kind: 'refund' }), replayed: false };
  }

  async getBalance(accountId: string): Promise<Balance> {
    const cell = this.balances.get(accountId);
    return { accountId, availableMicros: cell?.available ?? 0n, heldMicros: cell?.held ?? 0n };
  }

  async getHold(holdId: string): Promise<Hold | null> {
    const e = this.entries.get(holdId);
    return e && e.kind === 'hold' ? toHold(e) : null;
  }

  async getTransfer(id: string): Promise<Transfer | null> {
    const e = this.entries.get(id);
    return e && isTransfer(e) ? toTransfer(e) : null;
  }

  async listLots(accountId: string): Promise<Lot[]> {
    return this.lotsWithMoney(accountId).map(copyLot);
  }

  async postedSpend(accountId: string, range: { fromMs?: number; toMs?: number } = {}): Promise<Micros> {
    let sum = 0n;
    for (const e of this.account(accountId)) {
      if (e.postedAtMs === null || e.spendMicros === 0n) continue;
      if (range.fromMs !== undefined && e.postedAtMs < range.fromMs) continue;
      if (range.toMs !== undefined && e.postedAtMs >= range.toMs) continue;
      sum += e.spendMicros;
    }
    return sum;
  }

  async sumOfAllBalances(): Promise<Micros> {
    let sum = 0n;
    for (const cell of this.balances.values()) sum += cell.available + cell.held;
    return sum;
  }

  private record(e: Entry): Entry {
    this.entries.set(e.id, e);
    this.account(e.accountId).push(e);
    return e;
  }

  /** Ends a pending hold: its whole amount leaves held for available (settle then takes the posted part). */
  private resolve(e: Entry, status: 'posted' | 'voided' | 'expired', nowMs: number): void {
    const cell = this.cell(e.accountId);
    cell.held -= e.amountMicros;
    cell.available += e.amountMicros;
    e.status = status;
    e.resolvedAtMs = nowMs;
    this.pendingHolds.delete(e);
  }

  private replayTransfer(existing: Entry, key: ReplayKey): TransferOutcome {
    const lot = this.lotsById.get(existing.id);
    const spec = lot ? { currency: lot.currency, fxRateRubMicro: lot.fxRateRubMicro } : null;
    if (!isTransfer(existing) || !isSameRequest(existing, key, spec)) return { ok: false, reason: 'idempotency_conflict' };
    return { ok: true, transfer: toTransfer(existing), replayed: true };
  }

  private cell(accountId: string): Cell {
    let cell = this.balances.get(accountId);
    if (!cell) this.balances.set(accountId, (cell = { available: 0n, held: 0n }));
    return cell;
  }

  private account(accountId: string): Entry[] {
    let list = this.entriesByAccount.get(accountId);
    if (!list) this.entriesByAccount.set(accountId, (list = []));
    return list;
  }

  private lotsWithMoney(accountId: string): StoredLot[] {
    return (this.lotsByAccount.get(accountId) ?? []).filter((l) => l.remainingMicros > 0n);
  }

  private addLot(lot: StoredLot): void {
    this.lotsById.set(lot.id, lot);
    const list = this.lotsByAccount.get(lot.accountId) ?? [];
    list.push(lot);
    list.sort(spendingOrder); // usually already in order: top-ups arrive in time order
    this.lotsByAccount.set(lot.accountId, list);
  }

  private applyLots(plan: readonly Allocation[]): void {
    for (const [lotId, delta] of lotDeltas(plan)) {
      const lot = this.lotsById.get(lotId);
      if (!lot) throw new Error(`ledger: allocation names unknown lot ${lotId}`);
      lot.remainingMicros += delta;
    }
  }
}
