/**
 * The job-store port over Redis (SPEC 3.1), shared by any number of gateway processes (DESIGN 3 scale-out).
 * One string key per job, `<prefix><id>`, holding JSON, with a PX expiry so Redis itself forgets the record
 * when its retention ends (SPEC 8). `create` is SET NX PX; `transition` is one Lua script (GET, check the
 * status, merge, SET KEEPTTL), so no two processes can both win the same compare-and-set.
 *
 * Stored form: the record with its times as decimal strings and every top-level `data` value as its own JSON
 * text. Why: the script decodes and re-encodes the record with Redis's cjson, which turns `[]` into `{}` and
 * writes numbers with at most 14 significant digits. Strings survive cjson byte for byte, so the script never
 * re-encodes a caller's JSON: a shallow merge only replaces whole values, and those are opaque strings.
 *
 * Expiry: `get`/`transition` decide with the caller's clock (`expiresAtMs <= nowMs` is gone, as in memory.ts);
 * the Redis TTL (expiresAtMs − createdAtMs, from the moment of `create`) only frees the memory.
 */
import { JOB_STATUSES, type JobPatch, type JobRecord, type JobStatus, type JobStore } from './index.js';
import { assertValidJob, assertValidTime, assertValidTransition } from './memory.js';
import { RedisScript, type RedisScriptClient, type ScriptOptions } from '../redis/script.js';

/**
 * KEYS: the job. ARGV: now (ms, decimal), new status ('' keeps it), patch data (JSON object of JSON texts),
 * then the statuses allowed as `from`. Returns the new stored JSON, or nil (absent, expired, status not allowed).
 */
export const TRANSITION_SCRIPT = `
local raw = redis.call('GET', KEYS[1])
if not raw then return false end
local job = cjson.decode(raw)
if tonumber(job.expiresAtMs) <= tonumber(ARGV[1]) then return false end
local allowed = false
for i = 4, #ARGV do
  if job.status == ARGV[i] then allowed = true end
end
if not allowed then return false end
if ARGV[2] ~= '' then job.status = ARGV[2] end
job.updatedAtMs = ARGV[1]
for key, value in pairs(cjson.decode(ARGV[3])) do job.data[key] = value end
local encoded = cjson.encode(job)
redis.call('SET', KEYS[1], encoded, 'KEEPTTL')
return encoded
`;

const TRANSITION = new RedisScript(TRANSITION_SCRIPT);

interface SetNxPxOptions {
  condition: 'NX';
  expiration: { type: 'PX'; value: number };
}

/** The part of a node-redis v6 client (`createClient` from 'redis') this adapter uses. */
export interface RedisJobClient extends RedisScriptClient {
  get(key: string): Promise<unknown>;
  set(key: string, value: string, options: SetNxPxOptions): Promise<unknown>;
}

export interface RedisJobStoreOptions {
  /** Key prefix, so deployments (and test runs) sharing a Redis stay apart. Default `job:`. */
  prefix?: string;
}

export class RedisJobStore implements JobStore {
  readonly #client: RedisJobClient;
  readonly #prefix: string;

  /** The caller owns the client: it connects it before use and quits it after close(). */
  constructor(client: RedisJobClient, options: RedisJobStoreOptions = {}) {
    this.#client = client;
    this.#prefix = options.prefix ?? 'job:';
  }

  /** Optional warm-up at boot (SCRIPT LOAD); without it the first transition loads the script through EVAL. */
  async loadScript(): Promise<void> {
    await TRANSITION.load(this.#client);
  }

  async create(job: JobRecord): Promise<boolean> {
    assertValidJob(job);
    const ttlMs = job.expiresAtMs - job.createdAtMs;
    const reply = await this.#client.set(this.#key(job.id), JSON.stringify(toStored(job)), { condition: 'NX', expiration: { type: 'PX', value: ttlMs } });
    return reply === 'OK';
  }

  async get(id: string, nowMs: number): Promise<JobRecord | null> {
    assertValidTime('nowMs', nowMs);
    const raw = await this.#client.get(this.#key(id));
    if (raw === null) return null;
    const job = fromStored(raw);
    return job.expiresAtMs <= nowMs ? null : job;
  }

  async transition(id: string, from: readonly JobStatus[], patch: JobPatch, nowMs: number): Promise<JobRecord | null> {
    assertValidTransition(from, patch, nowMs);
    // An empty `from` never matches: no need to ask Redis.
    if (from.length === 0) return null;
    const options: ScriptOptions = {
      keys: [this.#key(id)],
      arguments: [String(nowMs), patch.status ?? '', JSON.stringify(encodeData(patch.data ?? {})), ...from],
    };
    const reply = await TRANSITION.run(this.#client, options);
    return reply === null ? null : fromStored(reply);
  }

  /** Nothing to release: the client belongs to the caller. */
  async close(): Promise<void> {}

  #key(id: string): string {
    return `${this.#prefix}${id}`;
  }

}

// ---------------------------------------------------------------------------------------------------------
// The stored form (see the file comment for why times are strings and data values are JSON texts).
// ---------------------------------------------------------------------------------------------------------

interface StoredJob {
  id: string;
  accountId: string;
  kind: string;
  status: string;
  createdAtMs: string;
  updatedAtMs: string;
  expiresAtMs: string;
  data: Record<string, string>;
}

function toStored(job: JobRecord): StoredJob {
  return {
    id: job.id,
    accountId: job.accountId,
    kind: job.kind,
    status: job.status,
    createdAtMs: String(job.createdAtMs),
    updatedAtMs: String(job.updatedAtMs),
    expiresAtMs: String(job.expiresAtMs),
    data: encodeData(job.data),
  };
}

/** Each value as JSON text; values JSON drops (undefined, functions) are dropped, as JSON.stringify(data) would. */
function encodeData(data: Record<string, unknown>): Record<string, string> {
  const entries = Object.entries(data).map(([key, value]) => [key, JSON.stringify(value) as string | undefined] as const);
  // fromEntries, not assignment: a `__proto__` key stays an own key, as JSON.parse makes it in memory.ts.
  return Object.fromEntries(entries.filter((entry): entry is readonly [string, string] => entry[1] !== undefined));
}

/** Decodes a stored value; anything else is corruption, an infrastructure error. */
function fromStored(raw: unknown): JobRecord {
  if (typeof raw !== 'string') throw new Error(`unexpected job-store reply: ${JSON.stringify(raw)}`);
  const stored = JSON.parse(raw) as Partial<StoredJob>;
  const times = [stored.createdAtMs, stored.updatedAtMs, stored.expiresAtMs].map(Number);
  const [createdAtMs, updatedAtMs, expiresAtMs] = times as [number, number, number];
  const wellFormed =
    typeof stored.id === 'string' && typeof stored.accountId === 'string' && typeof stored.kind === 'string' &&
    JOB_STATUSES.includes(stored.status as JobStatus) && times.every(Number.isSafeInteger) &&
    typeof stored.data === 'object' && stored.data !== null;
  if (!wellFormed) throw new Error(`malformed job record in Redis: ${raw.slice(0, 200)}`);
  const data = Object.fromEntries(Object.entries(stored.data as Record<string, string>).map(([key, json]) => [key, JSON.parse(json) as unknown]));
  return { id: stored.id as string, accountId: stored.accountId as string, kind: stored.kind as string, status: stored.status as JobStatus, createdAtMs, updatedAtMs, expiresAtMs, data };
}
