/**
 * The behavioural contract of the alert-store port (src/adapters/alert-store/index.ts), run against the memory twin,
 * SQLite and PostgreSQL: targets stored per account; rental events read in id order with their rental, the event
 * before and the account's chat (only while linked with rental alerts on); and the cursor's claim, a
 * compare-and-set lease that one owner holds at a time, moved only by its holder, held back after a failed send.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertStore } from '../../src/adapters/alert-store/index.js';
import type { InstanceStatus, StatusReason } from '../../src/adapters/market-store/index.js';
import { newId } from '../../src/lib/ids.js';

/** A rental as the event source writes it. */
export interface Rental {
  id: string;
  accountId: string;
  machineId: string;
  gpuName: string;
  gpuCount: number;
}

/** Writes rental status changes the way the market store does (SQL: through the market store itself). */
export interface EventSource {
  /** Places the rental: its first event, `pending`. */
  place(rental: Rental, atMs: number): Promise<void>;
  change(rentalId: string, status: InstanceStatus, reason: StatusReason | null, atMs: number): Promise<void>;
  /** Removes the rental with its history (a burst order undone). */
  unplace(rentalId: string): Promise<void>;
}

export interface AlertStoreUnderTest {
  store: AlertStore;
  events: EventSource;
  /** What `eventIdsCommitInOrder` must say for this backend. */
  commitsInOrder: boolean;
  cleanup(): Promise<void>;
}

const T0 = 1_750_000_000_000;
const LEASE = 60_000;

export function alertStoreConformance(name: string, make: () => Promise<AlertStoreUnderTest>): void {
  describe(`AlertStore conformance: ${name}`, () => {
    let subject: AlertStoreUnderTest | undefined;
    const store = (): AlertStore => subject!.store;
    const rental = (over: Partial<Rental> = {}): Rental => ({
      id: newId('inst'),
      accountId: newId('acc'),
      machineId: newId('mach'),
      gpuName: 'RTX_4090',
      gpuCount: 2,
      ...over,
    });
    beforeAll(async () => {
      subject = await make();
    });
    afterAll(async () => {
      await subject?.cleanup();
    });

    it('says whether event ids become visible in commit order', () => {
      expect(store().eventIdsCommitInOrder).toBe(subject!.commitsInOrder);
    });

    it('stores one target per account and replaces it; null for an account that set none', async () => {
      const accountId = newId('acc');
      expect(await store().getTarget(accountId)).toBeNull();
      await store().putTarget({ accountId, messengerChatId: '123456789', rentalsEnabled: true, updatedAtMs: T0 });
      expect(await store().getTarget(accountId)).toEqual({
        accountId,
        messengerChatId: '123456789',
        rentalsEnabled: true,
        updatedAtMs: T0,
      });
      await store().putTarget({ accountId, messengerChatId: null, rentalsEnabled: false, updatedAtMs: T0 + 1 });
      expect(await store().getTarget(accountId)).toEqual({
        accountId,
        messengerChatId: null,
        rentalsEnabled: false,
        updatedAtMs: T0 + 1,
      });
      expect(await store().getTarget(newId('acc'))).toBeNull();
    });

    it('reads events in id order with their rental, the event before, and the chat only while linked with rental alerts on', async () => {
      const linked = rental();
      const muted = rental({ gpuName: 'A100', gpuCount: 1 });
      const unlinked = rental();
      await store().putTarget({
        accountId: linked.accountId,
        messengerChatId: '-100200',
        rentalsEnabled: true,
        updatedAtMs: T0,
      });
      await store().putTarget({
        accountId: muted.accountId,
        messengerChatId: '300',
        rentalsEnabled: false,
        updatedAtMs: T0,
      });
      const start = (await store().rentalEventsAfter(0, 10_000)).at(-1)?.id ?? 0;
      await subject!.events.place(linked, T0);
      await subject!.events.place(muted, T0 + 1);
      await subject!.events.change(linked.id, 'running', null, T0 + 2);
      await subject!.events.place(unlinked, T0 + 3);
      await subject!.events.change(linked.id, 'stopped', 'insufficient_balance', T0 + 4);
      await subject!.events.change(muted.id, 'terminated', 'user', T0 + 5);

      const events = await store().rentalEventsAfter(start, 100);
      expect(events.map((e) => [e.instanceId, e.status, e.reason, e.previous, e.chatId])).toEqual([
        [linked.id, 'pending', null, null, '-100200'],
        [muted.id, 'pending', null, null, null],
        [linked.id, 'running', null, { status: 'pending', reason: null }, '-100200'],
        [unlinked.id, 'pending', null, null, null],
        [linked.id, 'stopped', 'insufficient_balance', { status: 'running', reason: null }, '-100200'],
        [muted.id, 'terminated', 'user', { status: 'pending', reason: null }, null],
      ]);
      expect(events[0]).toMatchObject({
        accountId: linked.accountId,
        machineId: linked.machineId,
        gpuName: 'RTX_4090',
        gpuCount: 2,
        atMs: T0,
      });
      expect(events[1]).toMatchObject({ accountId: muted.accountId, gpuName: 'A100', gpuCount: 1, atMs: T0 + 1 });
      const ids = events.map((e) => e.id);
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
      expect(new Set(ids).size).toBe(ids.length);

      // Paged by id: after any id, the rest in order, at most `limit`.
      expect((await store().rentalEventsAfter(ids[1]!, 2)).map((e) => e.id)).toEqual(ids.slice(2, 4));
      expect(await store().rentalEventsAfter(ids[5]!, 10)).toEqual([]);

      // The chat is the one linked when read, not when the event was written.
      await store().putTarget({
        accountId: linked.accountId,
        messengerChatId: null,
        rentalsEnabled: true,
        updatedAtMs: T0 + 6,
      });
      expect((await store().rentalEventsAfter(start, 1))[0]!.chatId).toBeNull();
    });

    it('a removed rental’s events are gone, leaving their ids unused', async () => {
      const start = (await store().rentalEventsAfter(0, 10_000)).at(-1)?.id ?? 0;
      const kept = rental();
      const undone = rental();
      await subject!.events.place(kept, T0);
      await subject!.events.place(undone, T0);
      await subject!.events.change(kept.id, 'running', null, T0 + 1);
      await subject!.events.unplace(undone.id);
      const events = await store().rentalEventsAfter(start, 100);
      expect(events.map((e) => e.instanceId)).toEqual([kept.id, kept.id]);
      expect(events[1]!.id - events[0]!.id).toBe(2);
    });

    describe('the cursor', () => {
      it('starts before every event (a fresh database) and unclaimed', async () => {
        expect(await store().readCursor()).toEqual({ lastEventId: 0, attempts: 0 });
        expect(await store().claimCursor('a', T0, LEASE)).toEqual({ lastEventId: 0, attempts: 0 });
        await store().releaseCursor('a');
      });

      it('one owner at a time: another is refused while the lease runs, and takes over once it has run out', async () => {
        expect(await store().claimCursor('a', T0, LEASE)).not.toBeNull();
        expect(await store().claimCursor('b', T0 + LEASE - 1, LEASE)).toBeNull();
        expect(await store().claimCursor('a', T0 + 10, LEASE)).not.toBeNull(); // the holder renews
        expect(await store().claimCursor('b', T0 + 10 + LEASE, LEASE)).not.toBeNull();
        expect(await store().advanceCursor('a', 0, 5, T0 + 10 + LEASE, LEASE)).toBe(false); // a lost it
        await store().releaseCursor('a'); // not a's to give back
        expect(await store().claimCursor('a', T0 + 20 + LEASE, LEASE)).toBeNull();
        await store().releaseCursor('b');
        expect(await store().claimCursor('a', T0 + 20 + LEASE, LEASE)).not.toBeNull();
        await store().releaseCursor('a');
      });

      it('of twelve owners claiming at once, exactly one wins', async () => {
        const owners = Array.from({ length: 12 }, (_, i) => `racer-${i}`);
        const claims = await Promise.all(owners.map((owner) => store().claimCursor(owner, T0 + 5 * LEASE, LEASE)));
        const winners = owners.filter((_, i) => claims[i] !== null);
        expect(winners).toHaveLength(1);
        await store().releaseCursor(winners[0]!);
      });

      it('moves only from where it is, only by its holder, renewing the lease', async () => {
        const { lastEventId } = await store().readCursor();
        expect(await store().advanceCursor('a', lastEventId, lastEventId + 3, T0, LEASE)).toBe(false); // not claimed
        await store().claimCursor('a', T0, LEASE);
        expect(await store().advanceCursor('a', lastEventId + 1, lastEventId + 3, T0, LEASE)).toBe(false); // not from there
        expect(await store().advanceCursor('a', lastEventId, lastEventId + 3, T0 + LEASE - 1, LEASE)).toBe(true);
        expect(await store().claimCursor('b', T0 + LEASE + 1, LEASE)).toBeNull(); // renewed by the move
        await store().releaseCursor('a');
        expect(await store().readCursor()).toEqual({ lastEventId: lastEventId + 3, attempts: 0 });
      });

      it('a failed send is counted and holds every claim back until its retry time; the next move forgets it', async () => {
        const { lastEventId } = await store().readCursor();
        await store().claimCursor('a', T0, LEASE);
        expect(await store().recordFailure('b', lastEventId, T0 + 1000)).toBe(false); // not b's
        expect(await store().recordFailure('a', lastEventId, T0 + 1000)).toBe(true);
        await store().releaseCursor('a');
        expect(await store().claimCursor('b', T0 + 999, LEASE)).toBeNull();
        expect(await store().claimCursor('b', T0 + 1000, LEASE)).toEqual({ lastEventId, attempts: 1 });
        expect(await store().recordFailure('b', lastEventId, T0 + 1000)).toBe(true);
        await store().releaseCursor('b');
        expect(await store().claimCursor('a', T0 + 1000, LEASE)).toEqual({ lastEventId, attempts: 2 });
        expect(await store().advanceCursor('a', lastEventId, lastEventId + 1, T0 + 1000, LEASE)).toBe(true);
        await store().releaseCursor('a');
        expect(await store().readCursor()).toEqual({ lastEventId: lastEventId + 1, attempts: 0 });
      });
    });
  });
}
