/** The one behavioural contract of the job-queue port (src/adapters/job-queue), run against every implementation. */
import { afterEach, describe, expect, it } from 'vitest';
import type { JobQueue } from '../../src/adapters/job-queue/index.js';
import { newId } from '../../src/lib/ids.js';
import { pollUntil } from '../setup/polling.js';
import { sleep } from '../setup/time.js';

/** Waits up to 5 s for what the queue's workers record, then asserts it holds. */
async function expectEventually(check: () => boolean): Promise<void> {
  await pollUntil(async () => check(), Boolean, { withinMs: 5_000, everyMs: 10 });
  expect(check()).toBe(true);
}

export function jobQueueConformance(name: string, make: () => Promise<JobQueue>): void {
  describe(`JobQueue conformance: ${name}`, () => {
    const opened: JobQueue[] = [];
    const open = async () => {
      const queue = await make();
      opened.push(queue);
      return queue;
    };
    afterEach(async () => {
      for (const queue of opened.splice(0)) await queue.close();
    });

    it('delivers each wake-up to the worker, a job queued twice while waiting once', async () => {
      const queue = await open();
      const seen: string[] = [];
      const [a, b] = [newId('job'), newId('job')];
      await queue.enqueue(a);
      await queue.enqueue(a);
      await queue.enqueue(b);
      queue.start(
        async (jobId) => void seen.push(jobId),
        2,
        (err) => expect.fail(String(err)),
      );
      await expectEventually(() => seen.length >= 2);
      await sleep(200);
      expect(seen.sort()).toEqual([a, b].sort());
    });

    it('runs at most `concurrency` at once, and a job queued again after its wake-up is delivered again', async () => {
      const queue = await open();
      let running = 0;
      let most = 0;
      const seen: string[] = [];
      queue.start(
        async (jobId) => {
          running += 1;
          most = Math.max(most, running);
          await sleep(50);
          seen.push(jobId);
          running -= 1;
        },
        2,
        (err) => expect.fail(String(err)),
      );
      const ids = Array.from({ length: 6 }, () => newId('job'));
      for (const id of ids) await queue.enqueue(id);
      await expectEventually(() => seen.length === 6);
      expect(most).toBeLessThanOrEqual(2);
      await queue.enqueue(ids[0]!);
      await expectEventually(() => seen.length === 7);
    });

    it('still delivers after the worker idled longer than a blocking wait of the queue (6 s)', async () => {
      const queue = await open();
      const seen: string[] = [];
      const errors: unknown[] = [];
      queue.start(
        async (jobId) => void seen.push(jobId),
        1,
        (err) => void errors.push(err),
      );
      await sleep(6_000);
      const id = newId('job');
      await queue.enqueue(id);
      await expectEventually(() => seen.length === 1);
      expect([seen, errors]).toEqual([[id], []]);
    }, 15_000);

    it('reports a failing worker to onError and goes on', async () => {
      const queue = await open();
      const errors: string[] = [];
      const seen: string[] = [];
      queue.start(
        async (jobId) => {
          if (jobId.endsWith('!')) throw new Error('boom');
          seen.push(jobId);
        },
        1,
        (_err, jobId) => void errors.push(jobId),
      );
      const [bad, good] = [`${newId('job')}!`, newId('job')];
      await queue.enqueue(bad);
      await queue.enqueue(good);
      await expectEventually(() => seen.length === 1 && errors.length === 1);
      expect([errors, seen]).toEqual([[bad], [good]]);
    });
  });
}
