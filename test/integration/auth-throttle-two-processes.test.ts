/**
 * Issue 26 item 5, hostile: a brute force spread over two gateway processes on one Redis. Each process has its own
 * connection and fires its attempts all at once; what both admit together never exceeds the one limit, because
 * the count lives in Redis and is checked and taken in one script. Both scenarios of a guesser: one account from
 * ever-new addresses (the per-email window), and ever-new accounts from one address (the per-address window).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_ATTEMPT_LIMITS } from '../../src/domain/accounts/auth-throttle.js';
import type { Plan } from '../fixtures/sign-in-attempts.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const ATTEMPTS_PER_PROCESS = 60;

interface Tally {
  admitted: number;
  limited: number;
  other: number;
}

function runProcess(plan: Plan): Promise<Tally> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'test/fixtures/sign-in-attempts.ts', JSON.stringify(plan)],
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout))),
    );
  });
}

/** Two processes with the same target, released together (a start time ahead of both their boots). */
async function bothProcesses(prefix: string, target: Plan['target']): Promise<Tally[]> {
  const startAtMs = Date.now() + 3_000;
  return Promise.all(
    [1, 2].map((processTag) =>
      runProcess({ redisUrl: REDIS_URL, prefix, attempts: ATTEMPTS_PER_PROCESS, processTag, target, startAtMs }),
    ),
  );
}

const total = (tallies: Tally[], field: keyof Tally) => tallies.reduce((sum, tally) => sum + tally[field], 0);

describe('sign-in brute force from two processes on one Redis', () => {
  const prefix = `test:auth:${process.pid}:${randomBytes(6).toString('hex')}:`;
  let redis: Redis;

  beforeAll(async () => {
    redis = new Redis(REDIS_URL, { lazyConnect: true });
    await redis.connect();
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('one account from 120 addresses: exactly the per-email limit is admitted across both', async () => {
    const email = `Victim-${randomBytes(4).toString('hex')}@Example.com`;
    const tallies = await bothProcesses(prefix, { email });
    const limit = AUTH_ATTEMPT_LIMITS.signInPerEmail.limit;
    expect(total(tallies, 'admitted')).toBe(limit);
    expect(total(tallies, 'limited')).toBe(2 * ATTEMPTS_PER_PROCESS - limit);
    expect(total(tallies, 'other')).toBe(0);
    // The count is in Redis under hashed names only: neither the email nor its parts appear in a key.
    const keys = await redis.keys(`${prefix}*`);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(key.toLowerCase()).not.toMatch(/victim|example/);
  });

  it('120 accounts from one address: exactly the per-address limit is admitted across both', async () => {
    const address = `192.0.2.${1 + ((randomBytes(1)[0] as number) % 250)}`;
    const tallies = await bothProcesses(`${prefix}spray:`, { address });
    const limit = AUTH_ATTEMPT_LIMITS.signInPerAddress.limit;
    expect(total(tallies, 'admitted')).toBe(limit);
    expect(total(tallies, 'limited')).toBe(2 * ATTEMPTS_PER_PROCESS - limit);
    expect(total(tallies, 'other')).toBe(0);
  });
});
