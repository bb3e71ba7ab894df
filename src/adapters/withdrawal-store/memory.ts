import { firstExceededCap } from './caps.js';
import {
  ACTIVE_WITHDRAWAL_STATUSES,
  type CapRefusal,
  type CreateWithdrawalOutcome,
  type NewWithdrawal,
  type SignedTransaction,
  type WithdrawalAddress,
  type WithdrawalCaps,
  type WithdrawalChange,
  type WithdrawalRecord,
  type WithdrawalStatus,
  type WithdrawalStore,
} from './index.js';

const copy = (w: WithdrawalRecord): WithdrawalRecord => ({ ...w, signed: w.signed ? { ...w.signed } : null });
const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Same order as the SQL store: oldest first, ties broken by id. */
function oldestFirst(a: { createdAtMs: number; id: string }, b: { createdAtMs: number; id: string }): number {
  return a.createdAtMs - b.createdAtMs || byId(a, b);
}

/** In-process twin of the SQL store; every operation runs to its end without awaiting, so its checks and sets hold. */
export class MemoryWithdrawalStore implements WithdrawalStore {
  private readonly addresses = new Map<string, WithdrawalAddress>();
  private readonly withdrawals = new Map<string, WithdrawalRecord>();

  async addAddress(address: WithdrawalAddress): Promise<{ ok: true } | { ok: false; reason: 'address_taken' }> {
    const taken = [...this.addresses.values()].some(
      (a) => a.accountId === address.accountId && a.address === address.address,
    );
    if (taken) return { ok: false, reason: 'address_taken' };
    this.addresses.set(address.id, { ...address });
    return { ok: true };
  }

  async listAddresses(accountId: string): Promise<WithdrawalAddress[]> {
    return [...this.addresses.values()]
      .filter((a) => a.accountId === accountId)
      .sort(oldestFirst)
      .map((a) => ({ ...a }));
  }

  async getAddress(id: string): Promise<WithdrawalAddress | null> {
    const found = this.addresses.get(id);
    return found ? { ...found } : null;
  }

  async removeAddress(accountId: string, id: string): Promise<boolean> {
    if (this.addresses.get(id)?.accountId !== accountId) return false;
    return this.addresses.delete(id);
  }

  async create(input: NewWithdrawal, caps: WithdrawalCaps): Promise<CreateWithdrawalOutcome> {
    const refused = this.refusal(input, caps); // no await before the insert: one create at a time
    if (refused) return refused;
    const withdrawal: WithdrawalRecord = {
      ...input,
      status: 'requested',
      approvedBy: null,
      signed: null,
      blockNumber: null,
      failureReason: null,
      updatedAtMs: input.createdAtMs,
      finishedAtMs: null,
    };
    this.withdrawals.set(withdrawal.id, withdrawal);
    return { ok: true, withdrawal: copy(withdrawal) };
  }

  async check(input: NewWithdrawal, caps: WithdrawalCaps): Promise<CapRefusal | null> {
    return this.refusal(input, caps);
  }

  private refusal(input: NewWithdrawal, caps: WithdrawalCaps): CapRefusal | null {
    const active = this.active();
    const mine = active.filter((w) => w.accountId === input.accountId);
    const today = (w: WithdrawalRecord) => w.createdAtMs >= caps.dayStartMs;
    return firstExceededCap(
      {
        accountTotalMicros: sumOf(mine),
        accountDailyMicros: sumOf(mine.filter(today)),
        globalDailyMicros: sumOf(active.filter(today)),
      },
      input.amountMicros + input.feeMicros,
      caps,
    );
  }

  async get(id: string): Promise<WithdrawalRecord | null> {
    const found = this.withdrawals.get(id);
    return found ? copy(found) : null;
  }

  async list(accountId: string, page: { limit: number; offset: number }): Promise<WithdrawalRecord[]> {
    return [...this.withdrawals.values()]
      .filter((w) => w.accountId === accountId)
      .sort((a, b) => oldestFirst(b, a))
      .slice(page.offset, page.offset + page.limit)
      .map(copy);
  }

  async scan(afterId: string | null, limit: number): Promise<WithdrawalRecord[]> {
    return [...this.withdrawals.values()]
      .filter((w) => afterId === null || w.id > afterId)
      .sort(byId)
      .slice(0, limit)
      .map(copy);
  }

  async activeTotal(accountId: string): Promise<bigint> {
    return sumOf(this.active().filter((w) => w.accountId === accountId));
  }

  /** The withdrawals whose amounts count against the caps. */
  private active(): WithdrawalRecord[] {
    return [...this.withdrawals.values()].filter((w) => ACTIVE_WITHDRAWAL_STATUSES.includes(w.status));
  }

  async inStatus(statuses: readonly WithdrawalStatus[], limit: number): Promise<WithdrawalRecord[]> {
    return [...this.withdrawals.values()]
      .filter((w) => statuses.includes(w.status))
      .sort(oldestFirst)
      .slice(0, limit)
      .map(copy);
  }

  async transition(
    id: string,
    expected: readonly WithdrawalStatus[],
    change: WithdrawalChange,
    atMs: number,
  ): Promise<WithdrawalRecord | null> {
    const withdrawal = this.withdrawals.get(id);
    if (withdrawal === undefined || !expected.includes(withdrawal.status)) return null;
    withdrawal.status = change.status;
    withdrawal.updatedAtMs = atMs;
    if (change.approvedBy !== undefined) withdrawal.approvedBy = change.approvedBy;
    if (change.blockNumber !== undefined) withdrawal.blockNumber = change.blockNumber;
    if (change.failureReason !== undefined) withdrawal.failureReason = change.failureReason;
    if (change.finishedAtMs !== undefined) withdrawal.finishedAtMs = change.finishedAtMs;
    return copy(withdrawal);
  }

  async recordSignature(id: string, signed: SignedTransaction, atMs: number): Promise<WithdrawalRecord | null> {
    const withdrawal = this.withdrawals.get(id);
    if (withdrawal?.status !== 'approved' || withdrawal.signed !== null) return null;
    // The SQL store's unique txid: one chain transaction never settles two withdrawals.
    if ([...this.withdrawals.values()].some((w) => w.signed?.txid === signed.txid))
      throw new Error(`txid ${signed.txid} already belongs to another withdrawal`);
    Object.assign(withdrawal, { status: 'signed', signed: { ...signed }, updatedAtMs: atMs });
    return copy(withdrawal);
  }
}

function sumOf(withdrawals: readonly WithdrawalRecord[]): bigint {
  return withdrawals.reduce((sum, w) => sum + w.amountMicros + w.feeMicros, 0n);
}
