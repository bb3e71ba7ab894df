/**
 * The one place a Redis connection is opened, for the rate limiter and its Lua scripts and for BullMQ: ioredis (the
 * client BullMQ is built on), with one connect timeout and one reconnect policy for every connection. What a
 * command does while Redis is away is the caller's choice (`RedisWhileDown`); each caller's fallback rests on it
 * (the rate limiter answers locally, rate-limiter/fail-open.ts; a kickoff leaves its job to the lease scan).
 */
import { Redis } from 'ioredis';

/** A connect attempt to an unresponsive host gives up after this long, and the next reconnect is scheduled. */
const CONNECT_TIMEOUT_MS = 2_000;

/** Reconnects never stop (Redis may be away for minutes): 200 ms more after each failed attempt, at most 2 s. */
function reconnectDelayMs(attempt: number): number {
  return Math.min(attempt * 200, 2_000);
}

export type RedisWhileDown =
  /** Commands fail at once while disconnected, so the caller falls back instead of waiting (rate limits, producers). */
  | 'fail-fast'
  /** Commands wait for the reconnect: a BullMQ worker's blocking reads, which BullMQ requires to retry forever. */
  | 'wait';

/**
 * A client not yet connected: the caller decides whether a failed first `connect()` is fatal. Commands leave at
 * once: ioredis's auto-pipelining would hold each until the end of the event-loop turn, and the rate limit's check
 * is on every request's path (bench/README.md, "The budget, measured").
 */
export function openRedis(url: string, whileDown: RedisWhileDown, onError: (err: unknown) => void): Redis {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: CONNECT_TIMEOUT_MS,
    retryStrategy: reconnectDelayMs,
    ...(whileDown === 'fail-fast'
      ? { enableOfflineQueue: false, maxRetriesPerRequest: 1 }
      : { enableOfflineQueue: true, maxRetriesPerRequest: null }),
  });
  client.on('error', onError);
  return client;
}

/** Connected and answering commands (not connecting, reconnecting or closed). */
export function isRedisReady(client: Redis): boolean {
  return client.status === 'ready';
}

/** QUIT when connected; otherwise stop reconnecting at once, since a QUIT could not be sent (or would wait forever). */
export async function closeRedis(client: Redis): Promise<void> {
  if (isRedisReady(client)) await client.quit();
  else client.disconnect();
}
