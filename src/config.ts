import { z } from 'zod';
import { ACCOUNT_SETTINGS } from './config-accounts.js';
import { DATABASE_SETTINGS } from './config-database.js';
import { PAYMENT_SETTINGS } from './config-payments.js';
import { WITHDRAWAL_SETTINGS } from './config-withdrawals.js';
import {
  IMAGE_RENDER_BUDGET_MS,
  RATE_PER_ACCOUNT_PER_MINUTE,
  RATE_PER_KEY_PER_MINUTE,
  UPSTREAM_BUDGET_MS,
  UPSTREAM_WORST_CASE_MS,
  VIDEO_STALL_MS,
} from './domain/limits.js';
import { StartupError } from './runtime/startup.js';

/** Every setting the service reads from the environment; parsed once at start, frozen. Units last in names. */
const schema = z.object({
  ...ACCOUNT_SETTINGS,
  ...PAYMENT_SETTINGS,
  ...WITHDRAWAL_SETTINGS,
  ...DATABASE_SETTINGS,
  NODE_ENV: z.string().default('development'),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  CATALOG_FILE: z.string().min(1).default('config/catalog.json'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Request bodies above this answer 413 request_too_large (SPEC 7.2; the cap itself is ours). */
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(20 * 1024 * 1024),
  /**
   * Check responses against the contract: `enforce` answers a violation with 500 (tests), `report` logs and counts
   * it and sends the response anyway (a charged call is never turned into a 500), `off` skips the check (~60 µs a
   * request). Default: off in production, report elsewhere.
   */
  VALIDATE_RESPONSES: z.enum(['off', 'report', 'enforce']).optional(),
  /** How long a resolved API key is trusted without asking the database; bounds how late another process's revocation is seen. */
  API_KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).default(1000),
  /** How often key last-used times are written (batched off the request path). */
  KEY_USAGE_FLUSH_MS: z.coerce.number().int().positive().default(5000),
  /** Scale-out rate limiting across processes; unset = the in-process limiter (embedded default). */
  REDIS_URL: z.string().min(1).optional(),
  /** SPEC 8 defaults; each key and account can be given its own with the admin CLI. */
  RATE_LIMIT_PER_KEY_PER_MINUTE: z.coerce.number().int().positive().default(RATE_PER_KEY_PER_MINUTE),
  RATE_LIMIT_PER_ACCOUNT_PER_MINUTE: z.coerce.number().int().positive().default(RATE_PER_ACCOUNT_PER_MINUTE),
  /** How long the Redis limiter may take before a request is answered from the local window instead: long
   * enough that a loaded but healthy Redis is waited for (limits hold across processes), short enough that a
   * hung one does not hang requests. A disconnected Redis is skipped at once. */
  RATE_LIMIT_REDIS_TIMEOUT_MS: z.coerce.number().int().positive().default(500),
  /** Today's top-up rate, RUB per USD (SPEC 2.6 rub_pricing: market). */
  MARKET_FX_RATE_RUB: z.coerce.number().positive().default(90),
  /**
   * A pre-flight hold not settled by then expires and is released (DESIGN.md 4); must outlive every deadline and job
   * budget below (HOLD_MUST_OUTLIVE). Unset: the longest of them plus 5 minutes (35 minutes with the defaults).
   */
  BILLING_HOLD_TTL_MS: z.coerce.number().int().positive().optional(),
  /**
   * Reserving in bulk for busy accounts (src/domain/billing/billing-leases.ts): the most one lease takes (0 turns leases
   * off, and every request holds on its own), how long it lives unless renewed while in use (a crashed process's
   * lease is back in the balance after it), and how long it may stay unused before it is given back. A lease must
   * cover 16 worst cases: a chat on a cheap model without max_tokens reserves about $0.26, so $10 lets it lease.
   */
  BILLING_LEASE_MAX_USD: z.coerce.number().min(0).default(10),
  // Renewed once a second (composition/background.ts), so a life of two seconds is the least that can be kept alive.
  BILLING_LEASE_TTL_MS: z.coerce.number().int().min(2_000).default(60_000),
  BILLING_LEASE_IDLE_MS: z.coerce.number().int().positive().default(5_000),
  /**
   * One end-to-end deadline per request (SPEC 8: 5 minutes), shared by every route of its chain; a stream must
   * produce its first token within it and then runs on, its hold extended while it does.
   */
  REQUEST_DEADLINE_MS: z.coerce.number().int().positive().default(UPSTREAM_BUDGET_MS),
  /** How long an Idempotency-Key and its kept response are remembered (Stripe: 24 hours). */
  IDEMPOTENCY_KEY_TTL_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(24 * 60 * 60 * 1000),
  /** How often expired holds and idempotency keys are swept. */
  HOLD_SWEEP_MS: z.coerce.number().int().positive().default(30_000),
  /** Where a charge the ledger could not take is kept until it lands (DESIGN.md 4), and how often it is retried. */
  CHARGE_JOURNAL_DIR: z.string().min(1).default('data/pending-charges'),
  CHARGE_RETRY_MS: z.coerce.number().int().positive().default(5_000),
  /** Routes per catalog slug (DESIGN.md 3); the default sends every text, embedding, rerank and image model to the sandbox. */
  UPSTREAMS_FILE: z.string().min(1).default('config/upstreams.yaml'),
  /**
   * With NODE_ENV=production the service will not start while any route sends traffic to the sandbox, which
   * answers every model with made-up text at real prices; `allow` is for a deliberate demo deployment.
   */
  SANDBOX_IN_PRODUCTION: z.enum(['refuse', 'allow']).default('refuse'),
  /**
   * Unknown API keys and session tokens one client address may present per minute before its lookups wait (429
   * auth_rate_limited).
   */
  AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().positive().default(30),
  /**
   * express `trust proxy`: which proxies' X-Forwarded-For names the client (`loopback`, a CIDR list, a hop count).
   * Unset: the peer address is the client.
   */
  TRUSTED_PROXY: z.string().min(1).optional(),
  /** Bearer token a Prometheus scraper sends for /metrics; unset: /metrics answers loopback clients only. */
  METRICS_TOKEN: z.string().min(16).optional(),
  /**
   * On SIGTERM or SIGINT, how long requests in flight may run on before their connections are closed (main.ts):
   * under an orchestrator's grace period (Kubernetes: 30 s), so the drain ends on the process's terms.
   */
  SHUTDOWN_DRAIN_MS: z.coerce.number().int().positive().default(25_000),
  /** An upstream that accepted a stream but sent no token for this long is failed over (SPEC 3.4). */
  STREAM_FIRST_TOKEN_TIMEOUT_MS: z.coerce.number().int().positive().default(120_000),
  /** Whitespace cadence on the keep-alive path (SPEC 4.2). */
  KEEP_ALIVE_INTERVAL_MS: z.coerce.number().int().positive().default(10_000),
  /** A single message longer than this answers message_too_long (SPEC 7.2; the cap itself is ours). */
  MAX_MESSAGE_CHARS: z.coerce.number().int().positive().default(1_000_000),
  TOKENIZER_THREADS: z.coerce.number().int().positive().default(1),
  /** Counting tasks that may wait for a tokenizer thread; one more answers 503 tokenizer_busy (issue 23). */
  TOKENIZER_MAX_WAITING: z.coerce.number().int().positive().default(64),
  /** Of those, how many one account may have waiting: one account cannot fill the line and get others refused. */
  TOKENIZER_MAX_WAITING_PER_ACCOUNT: z.coerce.number().int().positive().default(8),
  /** A counting task running longer than this is stopped and its request answered 503 tokenizer_busy, uncharged. */
  TOKENIZER_TASK_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** Reference media (input_images, image_url, …): addresses fetched even though private (CIDRs, comma-separated). */
  MEDIA_FETCH_ALLOW: z.string().default(''),
  MEDIA_FETCH_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(32 * 1024 * 1024),
  MEDIA_FETCH_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /** SPEC 8: a synchronous image render has 300 seconds (then 504 render_timeout, nothing charged). */
  IMAGE_RENDER_BUDGET_MS: z.coerce.number().int().positive().default(IMAGE_RENDER_BUDGET_MS),
  /** An image job's budget from kickoff (SPEC 7.5: delivery can take about 7 minutes; the record lives 15). */
  IMAGE_JOB_BUDGET_MS: z.coerce
    .number()
    .int()
    .positive()
    .max(14 * 60_000)
    .default(10 * 60_000),
  /** A speech, music or restoration job's budget from kickoff; past it the job fails, nothing charged (the record lives 60 minutes). */
  MEDIA_JOB_BUDGET_MS: z.coerce
    .number()
    .int()
    .positive()
    .max(59 * 60_000)
    .default(30 * 60_000),
  /** How often a running media render is polled at its upstream. */
  MEDIA_POLL_MS: z.coerce.number().int().positive().default(2_000),
  /** SPEC 3.1 watchdog: a render at 0 % this long is given up on its route (the next route is tried). */
  MEDIA_STALL_MS: z.coerce.number().int().positive().default(VIDEO_STALL_MS),
  /** How long a worker's lease on a job lasts unless renewed (every third of it); a dead worker's jobs are resumed after it. */
  JOB_LEASE_MS: z.coerce.number().int().positive().default(30_000),
  /** With REDIS_URL, jobs are dispatched through BullMQ under this key prefix: deployments sharing a Redis use different ones. */
  JOB_QUEUE_PREFIX: z.string().min(1).default('cgw'),
  /** How often each process looks for jobs whose worker died. */
  JOB_CLAIM_MS: z.coerce.number().int().positive().default(2_000),
  FILE_LINK_SECRET: z.string().min(32).optional(),
  BLOB_STORE: z.enum(['file', 's3']).default('file'),
  BLOB_DIR: z.string().min(1).default('data/files'),
  BLOB_SWEEP_MS: z.coerce.number().int().positive().default(60_000),
  S3_BUCKET: z.string().min(1).optional(),
  S3_PREFIX: z.string().default(''),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_ENDPOINT: z.string().url().optional(),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** Output cap assumed for the pre-flight hold when neither the request nor the catalog gives one. */
  DEFAULT_MAX_OUTPUT_TOKENS: z.coerce.number().int().positive().default(4096),
  /** A chat model's catalog slug that writes GPU recommendations (SPEC 2.13), billed to the caller; unset: a free template writes them. */
  RECOMMENDATION_MODEL: z.string().min(1).optional(),
  /** Chat job records stay pollable this long after kickoff. */
  CHAT_JOB_RETENTION_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(60 * 60 * 1000),
  /** One chat job's deadline (SPEC 8: 10 minutes in the worst case). */
  CHAT_JOB_BUDGET_MS: z.coerce.number().int().positive().default(UPSTREAM_WORST_CASE_MS),
  /** The platform's share of every rental charge, in percent; the rest is credited to the provider (SPEC 1.6). */
  MARKET_FEE_PERCENT: z.coerce.number().min(0).max(100).default(15),
  /** A machine whose agent is silent this long is offline: not offered, its rentals stop accruing. */
  MACHINE_OFFLINE_MS: z.coerce.number().int().positive().default(90_000),
  /** What a persistent volume costs per GB and 30-day month (RunPod's running rate), billed per millisecond while it exists. */
  VOLUME_USD_PER_GB_MONTH: z.coerce.number().min(0).max(100).default(0.1),
  /** How often running rentals are settled and checked against the balance (at least every minute, SPEC 4.5); volumes are swept as often and settled when an hour is due. */
  RENTAL_SWEEP_MS: z.coerce.number().int().positive().max(60_000).default(15_000),
  /** A rental its machine's agent has not run this long after it was asked to (placed or started) is stopped (`start_timeout`): its GPUs and hold are given back. */
  RENTAL_PENDING_TTL_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(30 * 60 * 1000),
  /** A rental offline (its agent silent) this long is stopped (`host_offline`): its GPUs, hold and SSH port are given back. */
  RENTAL_OFFLINE_TTL_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(60 * 60 * 1000),
  /** The most rentals one account may have waiting for their agent at once (the largest burst order fits). */
  RENTAL_MAX_PENDING_PER_ACCOUNT: z.coerce.number().int().positive().default(100),
  /** The most machines one provider may list that no operator has verified. */
  MARKET_MAX_UNVERIFIED_LISTED: z.coerce.number().int().min(0).default(10),
  /** How long after a listing change that raises a plan's price new rentals still pay the price before it (a cut applies at once). */
  MARKET_PRICE_RISE_NOTICE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(10 * 60 * 1000),
  /** Rental status alerts (SPEC 6.3) go through this messenger bot (Telegram Bot API wire format); unset: they are logged. */
  MESSENGER_BOT_TOKEN: z.string().min(1).optional(),
  MESSENGER_API_BASE: z.string().url().default('https://api.telegram.org'),
  /** How often each process looks for rental status changes to alert about. */
  ALERTS_INTERVAL_MS: z.coerce.number().int().positive().default(5_000),
  /** The SSH proxy: the name renters connect to, the address its ports listen on, and their range (`first-last`). */
  SSH_PROXY_HOST: z.string().min(1).default('127.0.0.1'),
  SSH_PROXY_BIND: z.string().min(1).default('127.0.0.1'),
  SSH_PROXY_PORTS: z
    .string()
    .regex(/^\d{1,5}-\d{1,5}$/, 'is first-last, e.g. 22000-22999')
    .default('22000-22999')
    .transform((v) => {
      const [first, last] = v.split('-').map(Number) as [number, number];
      return { first, last };
    })
    .refine(
      (r) => r.first >= 1 && r.first <= r.last && r.last <= 65_535,
      'is a range of ports, the first not above the last',
    ),
  /** Where agents dial back for SSH tunnels (`0`: any free port, for tests); `off` serves no proxy sockets from this process. */
  TUNNEL_HOST: z.string().min(1).optional(),
  TUNNEL_PORT: z.coerce.number().int().min(0).max(65_535).default(7022),
  SSH_PROXY: z.enum(['on', 'off']).default('on'),
  /** How far back measured throughput reaches (GET /v1/llm/models/{slug}/performance). */
  THROUGHPUT_WINDOW_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(60 * 60 * 1000),
});

/** The name of every setting above: deployment files are checked against it (test/unit/deployment-files.test.ts). */
export const CONFIG_VARIABLES: readonly string[] = Object.freeze(Object.keys(schema.shape));

export type ResponseValidation = 'off' | 'report' | 'enforce';

type Parsed = z.infer<typeof schema>;

export type Config = Readonly<
  Omit<Parsed, 'VALIDATE_RESPONSES' | 'BILLING_HOLD_TTL_MS'> & {
    VALIDATE_RESPONSES: ResponseValidation;
    BILLING_HOLD_TTL_MS: number;
  }
>;

/**
 * Everything a pre-flight hold pays for ends within one of these from the moment it is taken: a request (its chain's
 * deadline, a synchronous image render) or a job (its budget from kickoff, however long it waits to be worked on and
 * whichever worker resumes it). Streams and running jobs also extend their hold while they run; a hold that outlives
 * all of these still stands when a worker that died is replaced (issue 23 item 12).
 */
const HOLD_MUST_OUTLIVE = [
  'REQUEST_DEADLINE_MS',
  'CHAT_JOB_BUDGET_MS',
  'IMAGE_RENDER_BUDGET_MS',
  'IMAGE_JOB_BUDGET_MS',
  'MEDIA_JOB_BUDGET_MS',
] as const;
const HOLD_MARGIN_MS = 5 * 60 * 1000;

const longestDeadline = (c: Parsed) => Math.max(...HOLD_MUST_OUTLIVE.map((name) => c[name]));

/** A hold must outlive the work it pays for (DESIGN.md 4): longer than the longest deadline or job budget. */
const holdOutlivesDeadlines = (c: Parsed) =>
  c.BILLING_HOLD_TTL_MS === undefined || c.BILLING_HOLD_TTL_MS > longestDeadline(c);

/** BLOB_STORE=s3 names its bucket. */
const s3HasBucket = (c: z.infer<typeof schema>) => c.BLOB_STORE !== 's3' || c.S3_BUCKET !== undefined;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema
    .refine(holdOutlivesDeadlines, {
      path: ['BILLING_HOLD_TTL_MS'],
      message: `must be longer than the longest deadline (${HOLD_MUST_OUTLIVE.join(', ')}): a hold must outlive the work it pays for`,
    })
    .refine(s3HasBucket, { path: ['S3_BUCKET'], message: 'is required with BLOB_STORE=s3' })
    .safeParse(env);
  if (!parsed.success) {
    const [first, ...rest] = parsed.error.issues.map((i) => ({ setting: i.path.join('.'), problem: i.message }));
    throw new StartupError(
      first!.setting,
      [first!.problem, ...rest.map((r) => `${r.setting}: ${r.problem}`)].join('; '),
    );
  }
  const { VALIDATE_RESPONSES, BILLING_HOLD_TTL_MS, ...rest } = parsed.data;
  return Object.freeze({
    ...rest,
    BILLING_HOLD_TTL_MS: BILLING_HOLD_TTL_MS ?? longestDeadline(parsed.data) + HOLD_MARGIN_MS,
    VALIDATE_RESPONSES: VALIDATE_RESPONSES ?? (rest.NODE_ENV === 'production' ? 'off' : 'report'),
  });
}
