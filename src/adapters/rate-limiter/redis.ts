/**
 * The rate-limiter port over Redis (SPEC 7.1.4, 8), for any number of gateway processes (DESIGN 3 scale-out).
 * DESIGN 8: "Rate limits wrong across instances (LiteLLM): one atomic Lua script over both windows in Redis."
 * Each window is a sorted set of admitted requests scored by their time; the script prunes, counts, decides and
 * records in both sets in one step, so no two processes can both take the last slot.
 *
 * Times come from the caller (`nowMs`), not from Redis TIME: tests inject a clock, and the answer's
 * resetMs/retryAfterMs are relative to the same clock the caller uses for its headers.
 *
 * Keys are `<prefix>k:<keyId>` and `<prefix>a:<accountId>`; attempt windows (`hit`, redis-attempts.ts) `<prefix>h:<bucket>`. On Redis Cluster both keys of one script must hash
 * to one slot; that would need a hash tag (e.g. `{accountId}`) in both names. A single node is assumed here.
 */
import { randomBytes } from 'node:crypto';
import { RedisScript, type RedisScriptClient, type ScriptOptions } from '../redis/script.js';
import { assertValidAttempt } from './attempt-decision.js';
import { assertValidRequest, decisionFor, type Verdict, type WindowSnapshot } from './decision.js';
import {
  type AttemptDecision,
  type AttemptRequest,
  type RateLimitDecision,
  type RateLimiter,
  type RateLimitRequest,
  WINDOW_MS,
} from './index.js';
import { ATTEMPT_WINDOWS, hitOnRedis } from './redis-attempts.js';

/**
 * KEYS: key window, account window. ARGV: now, cutoff (= now − window), window ms, key limit, account limit,
 * member. Times travel as strings: Lua would format large numbers with %.14g when passing them back to Redis.
 * Returns {verdict (0 allowed, 1 key, 2 account), key count, account count, key oldest, account oldest},
 * counts after recording; an oldest score is meaningful only when its count is above 0.
 */
export const SLIDING_WINDOW_SCRIPT = `
local now, cutoff, window = ARGV[1], ARGV[2], tonumber(ARGV[3])
local keyLimit, accountLimit, member = tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6]
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', cutoff)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', cutoff)
local keyCount = redis.call('ZCARD', KEYS[1])
local accountCount = redis.call('ZCARD', KEYS[2])
local verdict = 0
if keyCount >= keyLimit then verdict = 1 elseif accountCount >= accountLimit then verdict = 2 end
local function score(key, index)
  local entry = redis.call('ZRANGE', key, index, index, 'WITHSCORES')
  if entry[2] == nil then return 0 end
  return tonumber(entry[2])
end
if verdict == 0 then
  for i = 1, 2 do
    redis.call('ZADD', KEYS[i], now, member)
    -- Live until the newest entry leaves; an entry from a caller whose clock runs ahead lives longer.
    redis.call('PEXPIRE', KEYS[i], window + math.max(0, score(KEYS[i], -1) - tonumber(now)))
  end
  keyCount = keyCount + 1
  accountCount = accountCount + 1
end
return {verdict, keyCount, accountCount, score(KEYS[1], 0), score(KEYS[2], 0)}
`;

const SLIDING_WINDOW = new RedisScript(SLIDING_WINDOW_SCRIPT);

/** The part of an ioredis client (redis/connect.ts) this adapter uses. */
export type { RedisScriptClient };

export interface RedisRateLimiterOptions {
  /** Key prefix, so deployments (and test runs) sharing a Redis stay apart. Default `rl:`. */
  prefix?: string;
  /** Length of the sliding window (SPEC 8: 60 s). */
  windowMs?: number;
}

const VERDICTS: readonly Verdict[] = ['allowed', 'key', 'account'];

export class RedisRateLimiter implements RateLimiter {
  readonly #client: RedisScriptClient;
  readonly #prefix: string;
  readonly #windowMs: number;
  /** Members must be unique per request: two requests in one millisecond are two entries. */
  readonly #memberSuffix = randomBytes(8).toString('hex');
  #sequence = 0;

  /** The caller owns the client: it connects it before use and quits it after close(). */
  constructor(client: RedisScriptClient, options: RedisRateLimiterOptions = {}) {
    this.#client = client;
    this.#prefix = options.prefix ?? 'rl:';
    this.#windowMs = options.windowMs ?? WINDOW_MS;
    if (!Number.isSafeInteger(this.#windowMs) || this.#windowMs <= 0)
      throw new RangeError(`windowMs must be a positive integer (got ${this.#windowMs})`);
  }

  /** Optional warm-up at boot (SCRIPT LOAD); without it the first call loads each script through EVAL. */
  async loadScript(): Promise<void> {
    await SLIDING_WINDOW.load(this.#client);
    await ATTEMPT_WINDOWS.load(this.#client);
  }

  async check(request: RateLimitRequest): Promise<RateLimitDecision> {
    assertValidRequest(request);
    const { nowMs } = request;
    const options: ScriptOptions = {
      keys: [`${this.#prefix}k:${request.keyId}`, `${this.#prefix}a:${request.accountId}`],
      arguments: [
        String(nowMs),
        String(nowMs - this.#windowMs),
        String(this.#windowMs),
        String(request.keyLimit),
        String(request.accountLimit),
        this.#nextMember(nowMs),
      ],
    };
    const reply = parseReply(await SLIDING_WINDOW.run(this.#client, options));
    return decisionFor(request, reply.verdict, this.#windowMs, reply.key, reply.account);
  }

  async hit(request: AttemptRequest): Promise<AttemptDecision> {
    assertValidAttempt(request);
    return hitOnRedis(this.#client, this.#prefix, this.#nextMember(request.nowMs), request);
  }

  #nextMember(nowMs: number): string {
    this.#sequence = (this.#sequence + 1) % Number.MAX_SAFE_INTEGER;
    return `${nowMs}-${this.#memberSuffix}-${this.#sequence}`;
  }

  /** Nothing to release: the client belongs to the caller. */
  async close(): Promise<void> {}
}

interface ScriptReply {
  verdict: Verdict;
  key: WindowSnapshot;
  account: WindowSnapshot;
}

function parseReply(reply: unknown): ScriptReply {
  if (!Array.isArray(reply) || reply.length !== 5 || !reply.every((value) => typeof value === 'number')) {
    throw new Error(`unexpected rate-limit script reply: ${JSON.stringify(reply)}`);
  }
  const [verdictCode, keyCount, accountCount, keyOldest, accountOldest] = reply as [
    number,
    number,
    number,
    number,
    number,
  ];
  const verdict = VERDICTS[verdictCode];
  if (verdict === undefined) throw new Error(`unexpected rate-limit verdict: ${verdictCode}`);
  const snapshot = (count: number, oldestMs: number): WindowSnapshot => ({
    count,
    oldestMs: count > 0 ? oldestMs : undefined,
  });
  return { verdict, key: snapshot(keyCount, keyOldest), account: snapshot(accountCount, accountOldest) };
}
