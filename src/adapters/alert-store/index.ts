/**
 * The alert-store port (SPEC 6.3: status alerts for rentals via a linked messenger; triggers and format are ours):
 * each account's alert target, a read of rental status changes in the order they were recorded, and the one cursor
 * that says how far they were delivered.
 *
 * Rental status changes are the market store's `instance_events` (migration 0011), appended whenever an instance's
 * status, desired status or reason changes; this store only reads them. The cursor is shared by every gateway
 * process: a process claims it by compare-and-set before sending (so no two processes send one alert), moves it past
 * each event once delivered (so a failed send is tried again), and gives it back when done. A claim is a lease: a
 * process that dies holding it is replaced once the lease runs out.
 */
import type { InstanceStatus, StatusReason } from '../market-store/index.js';

export interface AlertTarget {
  accountId: string;
  /** The linked messenger chat; null when none is linked (nothing is sent). */
  messengerChatId: string | null;
  /** Whether rental status changes are sent to it. */
  rentalsEnabled: boolean;
  updatedAtMs: number;
}

/** One rental status change with what an alert about it says and where it goes. */
export interface RentalEvent {
  /** `instance_events.id`: increasing in the order the changes were written. */
  id: number;
  instanceId: string;
  atMs: number;
  status: InstanceStatus;
  reason: StatusReason | null;
  /** The instance's event before this one; null for its first. */
  previous: { status: InstanceStatus; reason: StatusReason | null } | null;
  accountId: string;
  gpuName: string;
  gpuCount: number;
  machineId: string;
  /** Where the account's rental alerts go now: null when it linked no chat or turned rental alerts off. */
  chatId: string | null;
}

export interface AlertCursor {
  /** Every rental event up to this id was delivered or needed no alert. */
  lastEventId: number;
  /** Failed sends, so far, of the alert for the next event. */
  attempts: number;
}

export interface AlertStore {
  getTarget(accountId: string): Promise<AlertTarget | null>;
  /** Creates or replaces the account's target. */
  putTarget(target: AlertTarget): Promise<void>;

  /** Rental events with an id above `afterId`, in id order, at most `limit`; events of removed rentals are gone. */
  rentalEventsAfter(afterId: number, limit: number): Promise<RentalEvent[]>;
  /**
   * True when an event id is seen only once every smaller id is committed or never will be (SQLite's single
   * writer). False on PostgreSQL: a transaction holding a smaller id from the sequence may still commit, so a gap
   * in the ids may fill in later.
   */
  readonly eventIdsCommitInOrder: boolean;

  /** The cursor as stored, claimed or not. */
  readCursor(): Promise<AlertCursor>;
  /**
   * Claims the cursor for `owner` until `nowMs + leaseMs`, by compare-and-set on the cursor read: null when another
   * owner's lease is still running, the last failed send asked to wait past `nowMs`, or the cursor moved meanwhile.
   */
  claimCursor(owner: string, nowMs: number, leaseMs: number): Promise<AlertCursor | null>;
  /** Moves the claimed cursor from `fromId` to `toId`, forgets failed attempts and renews the lease; false if not ours any more. */
  advanceCursor(owner: string, fromId: number, toId: number, nowMs: number, leaseMs: number): Promise<boolean>;
  /** Counts a failed send of the event after `atId`; no process claims the cursor again before `retryAtMs`. */
  recordFailure(owner: string, atId: number, retryAtMs: number): Promise<boolean>;
  /** Gives the claim back (a no-op unless `owner` holds it). */
  releaseCursor(owner: string): Promise<void>;
}
