/** Polling a job through the API until it is terminal, as a client would. */
import { expect } from 'vitest';
import { expectNativeOk } from './envelopes.js';
import { call, type Harness } from './harness.js';
import { sleep } from './time.js';

/**
 * Polls `GET <jobsPath>/<jobId>` until `completed` or `failed`, at most `withinMs`: every 25 ms at first, backing
 * off to every half second, so a slow render stays within a key's 120 requests a minute.
 */
export async function untilTerminal(
  h: Harness,
  jobsPath: string,
  key: string,
  jobId: string,
  withinMs = 5_000,
): Promise<any> {
  const giveUpAt = Date.now() + withinMs;
  for (let delayMs = 25; Date.now() < giveUpAt; delayMs = Math.min(delayMs * 1.5, 500)) {
    const job = expectNativeOk(await call(h.baseUrl, 'GET', `${jobsPath}/${encodeURIComponent(jobId)}`, { key }));
    if (job.status === 'completed' || job.status === 'failed') return job;
    await sleep(delayMs);
  }
  return expect.fail(`job ${jobId} did not finish in ${withinMs} ms`);
}
