import type {
  CreateDepositOutcome,
  Credited,
  DepositAddress,
  DepositRecord,
  DepositStore,
  NewDeposit,
  Processor,
} from './index.js';
import { afterRefund } from './refunds.js';

const refKey = (processor: Processor, ref: string) => `${processor}\u0000${ref}`;
const copy = (d: DepositRecord): DepositRecord => ({ ...d });

/** Same order as the SQL store: newest first, ties broken by id descending. */
function newestFirst(a: DepositRecord, b: DepositRecord): number {
  if (a.createdAtMs !== b.createdAtMs) return b.createdAtMs - a.createdAtMs;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** In-process twin of the SQL store; every operation runs to its end without awaiting, so its compare-and-sets hold. */
export class MemoryDepositStore implements DepositStore {
  private readonly deposits = new Map<string, DepositRecord>();
  private readonly byRef = new Map<string, string>();
  private readonly addresses = new Map<string, DepositAddress>();
  private readonly cursors = new Map<string, number>();

  async create(input: NewDeposit): Promise<CreateDepositOutcome> {
    if (input.processorRef !== null && this.byRef.has(refKey(input.processor, input.processorRef)))
      return { ok: false, reason: 'ref_taken' };
    const deposit: DepositRecord = {
      ...input,
      chargeRef: null,
      creditedMicros: null,
      fxRateRubMicro: null,
      refundedMicros: 0n,
      updatedAtMs: input.createdAtMs,
      creditedAtMs: null,
    };
    this.deposits.set(deposit.id, deposit);
    if (deposit.processorRef !== null) this.byRef.set(refKey(deposit.processor, deposit.processorRef), deposit.id);
    return { ok: true, deposit: copy(deposit) };
  }

  async get(id: string): Promise<DepositRecord | null> {
    const found = this.deposits.get(id);
    return found ? copy(found) : null;
  }

  async findByRef(processor: Processor, processorRef: string): Promise<DepositRecord | null> {
    const id = this.byRef.get(refKey(processor, processorRef));
    return id === undefined ? null : this.get(id);
  }

  async findByChargeRef(processor: Processor, chargeRef: string): Promise<DepositRecord | null> {
    const found = [...this.deposits.values()].find((d) => d.processor === processor && d.chargeRef === chargeRef);
    return found ? copy(found) : null;
  }

  async list(accountId: string, page: { limit: number; offset: number }): Promise<DepositRecord[]> {
    return [...this.deposits.values()]
      .filter((d) => d.accountId === accountId)
      .sort(newestFirst)
      .slice(page.offset, page.offset + page.limit)
      .map(copy);
  }

  async scan(afterId: string | null, limit: number): Promise<DepositRecord[]> {
    return [...this.deposits.values()]
      .filter((d) => afterId === null || d.id > afterId)
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .slice(0, limit)
      .map(copy);
  }

  async attachCheckout(id: string, checkout: { processorRef: string; checkoutUrl: string }, atMs: number) {
    const deposit = this.deposits.get(id);
    if (deposit?.status !== 'pending' || deposit.processorRef !== null) return false;
    if (this.byRef.has(refKey(deposit.processor, checkout.processorRef))) return false;
    Object.assign(deposit, { ...checkout, updatedAtMs: atMs });
    this.byRef.set(refKey(deposit.processor, checkout.processorRef), id);
    return true;
  }

  async markCredited(id: string, credited: Credited): Promise<boolean> {
    const deposit = this.deposits.get(id);
    if (deposit === undefined || (deposit.status !== 'pending' && deposit.status !== 'awaiting_transfer')) return false;
    const { transfer } = credited;
    if (transfer !== undefined) {
      if (this.byRef.has(refKey(deposit.processor, transfer.processorRef))) return false;
      this.byRef.set(refKey(deposit.processor, transfer.processorRef), id);
      Object.assign(deposit, transfer);
    }
    Object.assign(deposit, {
      status: 'credited',
      creditedMicros: credited.creditedMicros,
      amountMinor: credited.amountMinor,
      fxRateRubMicro: credited.fxRateRubMicro,
      chargeRef: credited.chargeRef,
      creditedAtMs: credited.atMs,
      updatedAtMs: credited.atMs,
    });
    return true;
  }

  async oldestAwaiting(accountId: string): Promise<DepositRecord | null> {
    const waiting = [...this.deposits.values()]
      .filter((d) => d.accountId === accountId && d.status === 'awaiting_transfer')
      .sort((a, b) => newestFirst(b, a));
    return waiting[0] ? copy(waiting[0]) : null;
  }

  async pendingToCheck(beforeMs: number, limit: number): Promise<DepositRecord[]> {
    return [...this.deposits.values()]
      .filter((d) => d.status === 'pending' && d.processorRef !== null && d.updatedAtMs < beforeMs)
      .sort((a, b) => a.updatedAtMs - b.updatedAtMs || (a.id < b.id ? -1 : 1))
      .slice(0, limit)
      .map(copy);
  }

  async touch(id: string, atMs: number): Promise<void> {
    const deposit = this.deposits.get(id);
    if (deposit && deposit.updatedAtMs < atMs) deposit.updatedAtMs = atMs;
  }

  async markClosed(id: string, status: 'failed' | 'expired', atMs: number): Promise<boolean> {
    const deposit = this.deposits.get(id);
    if (deposit?.status !== 'pending') return false;
    Object.assign(deposit, { status, updatedAtMs: atMs });
    return true;
  }

  async addRefunded(id: string, micros: bigint, atMs: number): Promise<DepositRecord | null> {
    const deposit = this.deposits.get(id);
    if (deposit === undefined || deposit.creditedMicros === null) return null;
    Object.assign(deposit, afterRefund(deposit.creditedMicros, deposit.refundedMicros, micros), { updatedAtMs: atMs });
    return copy(deposit);
  }

  async addressFor(accountId: string, derive: (index: number) => string): Promise<DepositAddress> {
    const existing = this.addresses.get(accountId);
    if (existing) return { ...existing };
    const assigned = { accountId, index: this.addresses.size, address: derive(this.addresses.size) };
    this.addresses.set(accountId, assigned);
    return { ...assigned };
  }

  async findAddress(address: string): Promise<DepositAddress | null> {
    const found = [...this.addresses.values()].find((a) => a.address === address);
    return found ? { ...found } : null;
  }

  async cursor(chain: string): Promise<number | null> {
    return this.cursors.get(chain) ?? null;
  }

  async setCursor(chain: string, blockNumber: number): Promise<void> {
    this.cursors.set(chain, blockNumber);
  }
}
