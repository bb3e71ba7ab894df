import type { ChargeJournal, PendingCharge } from './index.js';

const copy = (charge: PendingCharge): PendingCharge => structuredClone(charge);

/** In-process twin of the file journal, for tests (it does not survive the process, so it is not for production). */
export class MemoryChargeJournal implements ChargeJournal {
  private readonly charges = new Map<string, PendingCharge>();

  async put(charge: PendingCharge): Promise<void> {
    this.charges.delete(charge.requestId); // re-recorded: now the newest
    this.charges.set(charge.requestId, copy(charge));
  }

  async list(): Promise<PendingCharge[]> {
    return [...this.charges.values()].map(copy);
  }

  async remove(requestId: string): Promise<void> {
    this.charges.delete(requestId);
  }
}
