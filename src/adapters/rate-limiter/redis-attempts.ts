/**
 * `hit` over Redis (index.ts: attempt windows; issue 26 item 5): one sorted set per bucket, scored by attempt time,
 * pruned, counted, decided and recorded in every window in one Lua script, so two processes can never both take
 * a window's last slot. Like the request windows (redis.ts), times come from the caller and the keys of one script
 * are assumed to live on one node (Redis Cluster would need a hash tag in the bucket names).
 */
import { RedisScript, type RedisScriptClient } from '../redis/script.js';
import { attemptDecisionFor } from './attempt-decision.js';
import type { WindowSnapshot } from './decision.js';
import type { AttemptDecision, AttemptRequest } from './index.js';

/**
 * KEYS: one sorted set per window. ARGV: now, member, then per window i (from 1): cutoff (= now − window) at
 * 3i, window ms at 3i + 1, limit at 3i + 2. Times travel as strings (Lua would print large numbers with %.14g).
 * Returns {allowed (1 or 0), then per window: count after recording, oldest score (meaningful when count > 0)}.
 */
export const ATTEMPT_SCRIPT = `
local now, member = ARGV[1], ARGV[2]
local counts, allowed = {}, 1
for i = 1, #KEYS do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', ARGV[3 * i])
  counts[i] = redis.call('ZCARD', KEYS[i])
  if counts[i] >= tonumber(ARGV[3 * i + 2]) then allowed = 0 end
end
local function score(key, index)
  local entry = redis.call('ZRANGE', key, index, index, 'WITHSCORES')
  if entry[2] == nil then return 0 end
  return tonumber(entry[2])
end
local reply = {allowed}
for i = 1, #KEYS do
  if allowed == 1 then
    redis.call('ZADD', KEYS[i], now, member)
    -- Live until the newest entry leaves; an entry from a caller whose clock runs ahead lives longer.
    redis.call('PEXPIRE', KEYS[i], tonumber(ARGV[3 * i + 1]) + math.max(0, score(KEYS[i], -1) - tonumber(now)))
    counts[i] = counts[i] + 1
  end
  reply[#reply + 1] = counts[i]
  reply[#reply + 1] = score(KEYS[i], 0)
end
return reply
`;

export const ATTEMPT_WINDOWS = new RedisScript(ATTEMPT_SCRIPT);

/** Runs one attempt; `member` must be unique per attempt (two in one millisecond are two entries). */
export async function hitOnRedis(
  client: RedisScriptClient,
  prefix: string,
  member: string,
  request: AttemptRequest,
): Promise<AttemptDecision> {
  const { windows, nowMs } = request;
  const reply = await ATTEMPT_WINDOWS.run(client, {
    keys: windows.map((window) => `${prefix}h:${window.bucket}`),
    arguments: [
      String(nowMs),
      member,
      ...windows.flatMap((window) => [String(nowMs - window.windowMs), String(window.windowMs), String(window.limit)]),
    ],
  });
  const { allowed, snapshots } = parseAttemptReply(reply, windows.length);
  return attemptDecisionFor(request, allowed, snapshots);
}

function parseAttemptReply(reply: unknown, windowCount: number): { allowed: boolean; snapshots: WindowSnapshot[] } {
  const valid =
    Array.isArray(reply) &&
    reply.length === 1 + 2 * windowCount &&
    reply.every((value) => typeof value === 'number') &&
    (reply[0] === 0 || reply[0] === 1);
  if (!valid) throw new Error(`unexpected attempt script reply: ${JSON.stringify(reply)}`);
  const numbers = reply as number[];
  const snapshots = Array.from({ length: windowCount }, (_, i) => {
    const count = numbers[1 + 2 * i] as number;
    return { count, oldestMs: count > 0 ? numbers[2 + 2 * i] : undefined };
  });
  return { allowed: numbers[0] === 1, snapshots };
}
