/**
 * Every numeric limit of SPEC 8 in one place, each named and cited; the code uses these names. Rows that are
 * data, not code, live where they are kept and are checked here by test (test/unit/limits.test.ts): the request
 * bounds in the contract (embedding inputs, temperature / top_p, burst GPUs and disk, video output_quality), the
 * per-model ones in the catalog (reference images, video durations, avatar length, the restoration price). Cost
 * rounding at $0.000001 is the unit of money itself (domain/billing/money.ts: micro-USD). Adapters never import
 * the domain, so the upstream client's own copies of the budget and connect timeout are held equal by that test.
 */

const SECOND_MS = 1_000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** SPEC 8 "Rate, per API key": 120 requests per minute by default (bumpable per key). */
export const RATE_PER_KEY_PER_MINUTE = 120;
/** SPEC 8 "Rate, per user": 600 requests per minute over all the account's keys by default. */
export const RATE_PER_ACCOUNT_PER_MINUTE = 600;
/** SPEC 8: the rate window is "a true sliding 60-second window". */
export const RATE_WINDOW_MS = 60 * SECOND_MS;

/** SPEC 8 "Embeddings inputs": up to 2048 inputs per request. */
export const EMBEDDING_MAX_INPUTS = 2048;
/** SPEC 8 "Embeddings inputs": 8192 tokens each on the text-embedding-3 models (others: their vendor's limit). */
export const EMBEDDING_MAX_INPUT_TOKENS = 8192;

/** SPEC 8 "Non-stream max_tokens" (SPEC 4.2): above this many output tokens a non-stream call uses keep-alive. */
export const KEEP_ALIVE_ABOVE_TOKENS = 4096;

/** SPEC 8 "temperature / top_p": [0, 2] and [0, 1]. */
export const TEMPERATURE_MAX = 2;
export const TOP_P_MAX = 1;

/** SPEC 8 "Upstream time budget": 5 minutes end to end. */
export const UPSTREAM_BUDGET_MS = 5 * MINUTE_MS;
/** SPEC 8: 10 minutes worst case, when the reliability fallback also takes the full window (a chat job's deadline). */
export const UPSTREAM_WORST_CASE_MS = 10 * MINUTE_MS;
/** SPEC 8: a connect failure fast-fails at 10 seconds. */
export const UPSTREAM_CONNECT_TIMEOUT_MS = 10 * SECOND_MS;

/** SPEC 8 "Synchronous image render": 300 seconds. */
export const IMAGE_RENDER_BUDGET_MS = 300 * SECOND_MS;
/** SPEC 8 "Video stall watchdog" (SPEC 3.1): 8 minutes at 0 %. */
export const VIDEO_STALL_MS = 8 * MINUTE_MS;

/** SPEC 8 "Job record retention": images 15 minutes (their links work as long). */
export const IMAGE_RETENTION_MS = 15 * MINUTE_MS;
/** SPEC 8 "Job record retention" (SPEC 3.1): video 2 hours from kickoff. */
export const VIDEO_RETENTION_MS = 2 * HOUR_MS;
/** SPEC 8 "Job record retention" (SPEC 3.1): music, audio and restoration 60 minutes from kickoff. */
export const MEDIA_RETENTION_MS = 60 * MINUTE_MS;
/** SPEC 8 "Draft finalisable" (SPEC 3.2): 7 days from the draft's kickoff. */
export const DRAFT_FINAL_WINDOW_MS = 7 * DAY_MS;

/** SPEC 8 "Burst GPU count": 1 to 100 per order. */
export const BURST_MIN_GPUS = 1;
export const BURST_MAX_GPUS = 100;
/** SPEC 8 "Burst disk": 20 to 1024 GB per instance. */
export const BURST_MIN_DISK_GB = 20;
export const BURST_MAX_DISK_GB = 1024;
/** SPEC 2.10 leaves the default disk open: 40 GB (within SPEC 8's 20-1024), enough for the common CUDA images. */
export const DEFAULT_DISK_GB = 40;

/** SPEC 8 "Video output_quality": 20 to 99 (accepted and ignored). */
export const VIDEO_MIN_OUTPUT_QUALITY = 20;
export const VIDEO_MAX_OUTPUT_QUALITY = 99;
