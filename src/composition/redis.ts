import type { Logger } from 'pino';
import { FailOpenRateLimiter } from '../adapters/rate-limiter/fail-open.js';
import type { RateLimiter } from '../adapters/rate-limiter/index.js';
import { MemoryRateLimiter } from '../adapters/rate-limiter/memory.js';
import { RedisRateLimiter } from '../adapters/rate-limiter/redis.js';
import type { Config } from '../config.js';

/**
 * REDIS_URL set: one sliding window shared by every gateway process, answered locally while Redis is down
 * (fail open, logged). Unset: the in-process limiter of the embedded default, which never loads the Redis client.
 */
export async function connectRedis(config: Config, logger: Logger) {
  if (config.REDIS_URL === undefined) return null;
  const { closeRedis, isRedisReady, openRedis } = await import('../adapters/redis/connect.js');
  const client = openRedis(config.REDIS_URL, 'fail-fast', (err) => logger.debug({ err }, 'redis'));
  await client
    .connect()
    .catch((err: unknown) => logger.warn({ err }, 'redis unreachable at start; limiting locally until it answers'));
  return { client, isReady: () => isRedisReady(client), close: () => closeRedis(client) };
}

export type Redis = NonNullable<Awaited<ReturnType<typeof connectRedis>>>;

export function buildRateLimiter(redis: Redis | null, config: Config, logger: Logger): RateLimiter {
  const local = new MemoryRateLimiter();
  if (redis === null) return local;
  return new FailOpenRateLimiter({
    primary: new RedisRateLimiter(redis.client),
    fallback: local,
    logger,
    isPrimaryReady: redis.isReady,
    timeoutMs: config.RATE_LIMIT_REDIS_TIMEOUT_MS,
  });
}
