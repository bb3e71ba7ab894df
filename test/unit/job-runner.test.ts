/**
 * The in-process job runner (src/domain/jobs/job-runner.ts): a job is worked on by the process that launched it
 * while it renews its lease; another process claims it only once that lease ran out or was given back, and the
 * first worker is then told it lost the job.
 */
import { describe, expect, it } from 'vitest';
import { InProcessJobQueue } from '../../src/adapters/job-queue/in-process.js';
import type { JobRecord } from '../../src/adapters/job-store/index.js';
import { MemoryJobStore } from '../../src/adapters/job-store/memory.js';
import { JobRunner, type JobWork } from '../../src/domain/jobs/job-runner.js';
import { newId } from '../../src/lib/ids.js';
import { sleep } from '../setup/time.js';

const LEASE_MS = 60;

/** Work that records who got which job and holds it until released; `lost` is remembered per job. */
function recordingWork() {
  const started: string[] = [];
  const lostJobs: string[] = [];
  let release: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (release = resolve));
  const work: JobWork = {
    async advance(job, lost) {
      started.push(job.id);
      lost.addEventListener('abort', () => lostJobs.push(job.id));
      await done;
    },
  };
  return { work, started, lostJobs, release: () => release() };
}

function runner(store: MemoryJobStore, work: JobWork, skewMs = 0): JobRunner {
  const r = new JobRunner(store, new InProcessJobQueue(), {
    leaseMs: LEASE_MS,
    claimBatch: 10,
    now: () => Date.now() + skewMs,
    onUnexpected: (err: unknown) => expect.fail(String(err)),
  });
  r.register('image', work);
  r.start();
  return r;
}

function job(): JobRecord {
  const nowMs = Date.now();
  return {
    id: newId('job'),
    accountId: newId('acc'),
    kind: 'image',
    status: 'pending',
    createdAtMs: nowMs,
    updatedAtMs: nowMs,
    expiresAtMs: nowMs + 60_000,
    data: {},
  };
}

describe('JobRunner', () => {
  it('keeps a launched job for as long as its work runs (renewing the lease), then lets it go', async () => {
    const store = new MemoryJobStore();
    const a = recordingWork();
    const b = recordingWork();
    const first = runner(store, a.work);
    const second = runner(store, b.work);
    const record = job();
    expect(await first.launch(record)).toBe(true);
    expect(a.started).toEqual([record.id]);
    for (let i = 0; i < 5; i++) {
      await sleep(LEASE_MS);
      expect(await second.resumeOrphans()).toBe(0);
    }
    expect(first.active).toBe(1);
    a.release();
    await sleep(10);
    expect(first.active).toBe(0);
    expect(a.lostJobs).toEqual([]);
  });

  it('hands the job of a closed runner to another at once; a runner that dies leaves it claimable once its lease runs out', async () => {
    const store = new MemoryJobStore();
    const a = recordingWork();
    const b = recordingWork();
    const closing = runner(store, a.work);
    const record = job();
    await closing.launch(record);
    await closing.close();
    expect(a.lostJobs).toEqual([record.id]);
    const other = runner(store, b.work);
    expect(await other.resumeOrphans()).toBe(1);
    expect(b.started).toEqual([record.id]);
    b.release();

    const fresh = new MemoryJobStore();
    const dead = job();
    await fresh.create(dead, { owner: 'a-dead-process', untilMs: Date.now() + LEASE_MS });
    const c = recordingWork();
    const third = runner(fresh, c.work);
    expect(await third.resumeOrphans()).toBe(0);
    await sleep(LEASE_MS + 10);
    expect(await third.resumeOrphans()).toBe(1);
    expect(c.started).toEqual([dead.id]);
    c.release();
  });

  it('tells a worker that lost its lease to another (whose clock says it ran out) to stop', async () => {
    const store = new MemoryJobStore();
    const a = recordingWork();
    const b = recordingWork();
    const slow = runner(store, a.work);
    const ahead = runner(store, b.work, 10 * LEASE_MS);
    const record = job();
    await slow.launch(record);
    expect(await ahead.resumeOrphans()).toBe(1);
    await sleep(LEASE_MS);
    expect(a.lostJobs).toEqual([record.id]);
    expect(slow.active).toBe(0);
    a.release();
    b.release();
  });

  it('leaves jobs of a kind it has no work for to the processes that have', async () => {
    const store = new MemoryJobStore();
    const a = recordingWork();
    const r = runner(store, a.work);
    const other = { ...job(), kind: 'video' };
    await store.create(other);
    await r.resumeOrphans();
    expect(a.started).toEqual([]);
  });
});
