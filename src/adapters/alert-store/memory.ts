import type { InstanceStatus, StatusReason } from '../market-store/index.js';
import type { AlertCursor, AlertStore, AlertTarget, RentalEvent } from './index.js';

/** What the market store writes for one status change, as the twin is told it. */
export interface RecordedChange {
  instanceId: string;
  accountId: string;
  gpuName: string;
  gpuCount: number;
  machineId: string;
  status: InstanceStatus;
  reason: StatusReason | null;
  atMs: number;
}

type Stored = Omit<RentalEvent, 'previous' | 'chatId'>;

/**
 * The in-memory twin of the alert store, for tests. It has no market store to read, so tests record the status
 * changes the market store would write (`record`) and remove a rental with its events (`removeInstance`, as
 * `unplace` does); the cursor follows the same compare-and-set rules as the SQL one.
 */
export class MemoryAlertStore implements AlertStore {
  readonly eventIdsCommitInOrder: boolean = true;
  readonly #targets = new Map<string, AlertTarget>();
  readonly #events: Stored[] = [];
  #nextId = 1;
  #cursor = { lastEventId: 0, attempts: 0, retryAtMs: 0, owner: null as string | null, untilMs: 0 };

  /** Appends a status change with the next id; answers the id. */
  record(change: RecordedChange): number {
    const id = this.#nextId++;
    this.#events.push({ id, ...change });
    return id;
  }

  /** Removes a rental's events, leaving their ids unused (a gap). */
  removeInstance(instanceId: string): void {
    for (let i = this.#events.length - 1; i >= 0; i--)
      if (this.#events[i]!.instanceId === instanceId) this.#events.splice(i, 1);
  }

  async getTarget(accountId: string): Promise<AlertTarget | null> {
    const target = this.#targets.get(accountId);
    return target === undefined ? null : { ...target };
  }

  async putTarget(target: AlertTarget): Promise<void> {
    this.#targets.set(target.accountId, { ...target });
  }

  async rentalEventsAfter(afterId: number, limit: number): Promise<RentalEvent[]> {
    return this.#events
      .filter((e) => e.id > afterId)
      .slice(0, limit)
      .map((e) => {
        const before = this.#events.filter((p) => p.instanceId === e.instanceId && p.id < e.id).at(-1);
        const target = this.#targets.get(e.accountId);
        const chatId = target?.rentalsEnabled ? target.messengerChatId : null;
        return {
          ...e,
          previous: before === undefined ? null : { status: before.status, reason: before.reason },
          chatId,
        };
      });
  }

  async readCursor(): Promise<AlertCursor> {
    return { lastEventId: this.#cursor.lastEventId, attempts: this.#cursor.attempts };
  }

  async claimCursor(owner: string, nowMs: number, leaseMs: number): Promise<AlertCursor | null> {
    const c = this.#cursor;
    if ((c.owner !== null && c.owner !== owner && c.untilMs > nowMs) || c.retryAtMs > nowMs) return null;
    c.owner = owner;
    c.untilMs = nowMs + leaseMs;
    return this.readCursor();
  }

  async advanceCursor(owner: string, fromId: number, toId: number, nowMs: number, leaseMs: number): Promise<boolean> {
    const c = this.#cursor;
    if (c.owner !== owner || c.lastEventId !== fromId) return false;
    Object.assign(c, { lastEventId: toId, attempts: 0, retryAtMs: 0, untilMs: nowMs + leaseMs });
    return true;
  }

  async recordFailure(owner: string, atId: number, retryAtMs: number): Promise<boolean> {
    const c = this.#cursor;
    if (c.owner !== owner || c.lastEventId !== atId) return false;
    c.attempts += 1;
    c.retryAtMs = retryAtMs;
    return true;
  }

  async releaseCursor(owner: string): Promise<void> {
    if (this.#cursor.owner === owner) Object.assign(this.#cursor, { owner: null, untilMs: 0 });
  }
}
