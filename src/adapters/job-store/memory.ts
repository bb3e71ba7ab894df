/**
 * In-process twin of the job-store port (SPEC 3.1), for tests and for one process that needs no durability.
 * Records are kept as JSON text, so every read and write is a copy and the JSON rules (undefined dropped, Dates
 * as strings) are exactly those of the SQL store, which also stores JSON. Every method runs synchronously between
 * awaits, so each compare-and-set is atomic within the process.
 */

import {
  assertValidJob,
  assertValidLease,
  assertValidTime,
  assertValidTransition,
  holdsExpected,
  isTerminalStatus,
} from './checks.js';
import type { JobLease, JobPatch, JobRecord, JobStatus, JobStore } from './index.js';

interface Entry {
  json: string;
  expiresAtMs: number;
  createdAtMs: number;
  status: JobStatus;
  lease: JobLease | null;
}

export class MemoryJobStore implements JobStore {
  readonly #entries = new Map<string, Entry>();

  async create(job: JobRecord, lease?: JobLease): Promise<boolean> {
    assertValidJob(job);
    if (lease !== undefined) assertValidLease(lease);
    if (this.#entries.has(job.id)) return false;
    const { id, accountId, kind, status, createdAtMs, updatedAtMs, expiresAtMs, data } = job;
    // Only the port's fields, as the SQL store keeps them: a caller's extra properties must not survive here alone.
    const json = JSON.stringify({
      id,
      accountId,
      kind,
      status,
      createdAtMs,
      updatedAtMs,
      expiresAtMs,
      data,
    } satisfies JobRecord);
    this.#entries.set(id, { json, expiresAtMs, createdAtMs, status, lease: lease === undefined ? null : { ...lease } });
    return true;
  }

  async get(id: string, nowMs: number): Promise<JobRecord | null> {
    assertValidTime('nowMs', nowMs);
    const entry = this.#live(id, nowMs);
    return entry === undefined ? null : (JSON.parse(entry.json) as JobRecord);
  }

  async transition(
    id: string,
    from: readonly JobStatus[],
    patch: JobPatch,
    nowMs: number,
    owner?: string,
  ): Promise<JobRecord | null> {
    assertValidTransition(from, patch, nowMs);
    const entry = this.#live(id, nowMs);
    if (entry === undefined || !from.includes(entry.status) || (owner !== undefined && entry.lease?.owner !== owner))
      return null;
    const current = JSON.parse(entry.json) as JobRecord;
    if (!holdsExpected(current.data, patch.expect)) return null;
    // Through JSON first, so an undefined value in the patch keeps the old one, as in the SQL store.
    const patchData = JSON.parse(JSON.stringify(patch.data ?? {})) as Record<string, unknown>;
    const next: JobRecord = {
      ...current,
      status: patch.status ?? current.status,
      updatedAtMs: nowMs,
      data: { ...current.data, ...patchData },
    };
    entry.json = JSON.stringify(next);
    entry.status = next.status;
    return JSON.parse(entry.json) as JobRecord;
  }

  async claim(lease: JobLease, nowMs: number, limit: number): Promise<JobRecord[]> {
    assertValidLease(lease);
    assertValidTime('nowMs', nowMs);
    const due = [...this.#entries.values()]
      .filter(
        (e) => e.expiresAtMs > nowMs && !isTerminalStatus(e.status) && (e.lease === null || e.lease.untilMs <= nowMs),
      )
      .sort((a, b) => a.createdAtMs - b.createdAtMs)
      .slice(0, limit);
    for (const entry of due) entry.lease = { ...lease };
    return due.map((entry) => JSON.parse(entry.json) as JobRecord);
  }

  async claimOne(id: string, lease: JobLease, nowMs: number): Promise<JobRecord | null> {
    assertValidLease(lease);
    const entry = this.#live(id, nowMs);
    if (entry === undefined || isTerminalStatus(entry.status) || (entry.lease !== null && entry.lease.untilMs > nowMs))
      return null;
    entry.lease = { ...lease };
    return JSON.parse(entry.json) as JobRecord;
  }

  async renew(id: string, lease: JobLease, nowMs: number): Promise<boolean> {
    assertValidLease(lease);
    const entry = this.#live(id, nowMs);
    if (entry === undefined || isTerminalStatus(entry.status) || entry.lease?.owner !== lease.owner) return false;
    entry.lease = { ...lease };
    return true;
  }

  async release(id: string, owner: string): Promise<void> {
    const entry = this.#entries.get(id);
    if (entry?.lease?.owner === owner) entry.lease = null;
  }

  async expire(nowMs: number): Promise<number> {
    assertValidTime('nowMs', nowMs);
    let count = 0;
    for (const [id, entry] of this.#entries) {
      if (entry.expiresAtMs <= nowMs && this.#entries.delete(id)) count += 1;
    }
    return count;
  }

  async close(): Promise<void> {
    this.#entries.clear();
  }

  #live(id: string, nowMs: number): Entry | undefined {
    const entry = this.#entries.get(id);
    return entry !== undefined && entry.expiresAtMs > nowMs ? entry : undefined;
  }
}
