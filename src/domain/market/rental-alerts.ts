/**
 * The rental alert dispatcher (SPEC 6.3: "Status alerts via linked messenger notifications exist for rentals";
 * triggers and format are ours, see rental-alert-text.ts). Run by a Periodic in every gateway process; each run:
 *
 * 1. claims the shared cursor over rental events by compare-and-set (src/adapters/alert-store): the processes that
 *    read the same cursor race for one row and one wins, so one alert is never sent by two live processes;
 * 2. reads the events after it in id order, and for each sends its alert to the account's linked chat when rental
 *    alerts are on, then moves the cursor past it. At least once: the cursor moves only past an event whose alert
 *    was sent or needed none, so a failed send is tried again by the next run (of any process), after the bot's
 *    `retry_after` when it gave one. An alert that fails MAX_ATTEMPTS times, or that the bot refuses for good (no
 *    such chat, bot blocked), is dropped with a warning: one dead chat must not hold everyone's alerts back for long.
 *    A process that dies between a send and the cursor's move leaves that alert to be sent again once its claim
 *    lapses (CLAIM_LEASE_MS): a duplicate only on a crash, never a loss.
 * 3. gives the claim back.
 *
 * Alerts go out in event order: a send that fails holds the later ones back until it succeeds or is dropped.
 */
import type { Logger } from 'pino';
import type { AlertCursor, AlertStore, RentalEvent } from '../../adapters/alert-store/index.js';
import { type Notifier, NotifierError } from '../../adapters/notifier/index.js';
import { newId } from '../../lib/ids.js';
import { rentalAlertText } from './rental-alert-text.js';

/** Sends of one alert before it is dropped (at ALERTS_INTERVAL_MS apart, or the bot's retry_after). */
export const MAX_ATTEMPTS = 5;
/** Longer than one send's budget (10 s) with room: the claim is renewed at each event delivered. */
const CLAIM_LEASE_MS = 60_000;
/** Events read per query; a run goes on reading while batches come back full. */
const BATCH = 100;
/**
 * On PostgreSQL a missing id may belong to a transaction that has not committed yet: later events wait this long
 * for it before the gap is taken as final (a rolled-back insert, or a rental removed with its history).
 */
const GAP_WAIT_MS = 10_000;

export interface RentalAlertsDeps {
  store: AlertStore;
  notifier: Notifier;
  now: () => number;
  logger: Pick<Logger, 'info' | 'warn'>;
}

/** What became of one event: the cursor may pass it, or its alert must be tried again from `retryAtMs`. */
type Step = { pass: true } | { pass: false; retryAtMs: number };
const PASS: Step = { pass: true };

export class RentalAlerts {
  /** A gap in the event ids after `afterId`, first seen at `seenAtMs` (PostgreSQL only). */
  private gap: { afterId: number; seenAtMs: number } | null = null;

  constructor(private readonly deps: RentalAlertsDeps) {}

  /**
   * One run: nothing when another run (of this process or another) holds the cursor, or a retry is not due yet.
   * Each run claims under a name of its own, so two runs never share a claim, wherever they run.
   */
  async run(): Promise<void> {
    const { store } = this.deps;
    // Most runs find nothing new: then two reads, and no write (every process runs every few seconds).
    const seen = await store.readCursor();
    if ((await store.rentalEventsAfter(seen.lastEventId, 1)).length === 0) return;
    const owner = newId('alerts');
    const cursor = await store.claimCursor(owner, this.deps.now(), CLAIM_LEASE_MS);
    if (cursor === null) return;
    try {
      await this.deliverAfter(owner, cursor);
    } finally {
      await store.releaseCursor(owner);
    }
  }

  private async deliverAfter(owner: string, cursor: AlertCursor): Promise<void> {
    const { store } = this.deps;
    let { lastEventId, attempts } = cursor;
    for (;;) {
      const events = await store.rentalEventsAfter(lastEventId, BATCH);
      for (const event of events) {
        if (!this.mayPassGap(lastEventId, event.id)) return;
        const step = await this.deliver(event, attempts);
        if (!step.pass) {
          await store.recordFailure(owner, lastEventId, step.retryAtMs);
          return;
        }
        // False only when the claim lapsed and another process took over: it carries on from where the cursor is.
        if (!(await store.advanceCursor(owner, lastEventId, event.id, this.deps.now(), CLAIM_LEASE_MS))) return;
        lastEventId = event.id;
        attempts = 0;
      }
      if (events.length < BATCH) return;
    }
  }

  /** Sends the event's alert if it needs one; `attempts` is how often it failed before. */
  private async deliver(event: RentalEvent, attempts: number): Promise<Step> {
    const text = rentalAlertText(event);
    if (text === null || event.chatId === null) return PASS;
    try {
      await this.deps.notifier.send({ chatId: event.chatId }, text);
      return PASS;
    } catch (err) {
      const failure = err instanceof NotifierError ? err : new NotifierError(String(err), false);
      const about = {
        instance_id: event.instanceId,
        event_id: event.id,
        account_id: event.accountId,
        attempt: attempts + 1,
        reason: failure.message,
      };
      if (failure.permanent || attempts + 1 >= MAX_ATTEMPTS) {
        this.deps.logger.warn(
          about,
          failure.permanent
            ? 'rental alert dropped: the messenger refused it for good'
            : `rental alert dropped after ${MAX_ATTEMPTS} failed sends`,
        );
        return PASS;
      }
      this.deps.logger.info(about, 'rental alert not sent; trying again');
      return { pass: false, retryAtMs: this.deps.now() + (failure.retryAfterMs ?? 0) };
    }
  }

  /** Whether the cursor may move from `lastId` to `nextId` over the ids between (see GAP_WAIT_MS). */
  private mayPassGap(lastId: number, nextId: number): boolean {
    if (nextId === lastId + 1 || this.deps.store.eventIdsCommitInOrder) return true;
    const now = this.deps.now();
    if (this.gap?.afterId !== lastId) this.gap = { afterId: lastId, seenAtMs: now };
    return now - this.gap.seenAtMs >= GAP_WAIT_MS;
  }
}
