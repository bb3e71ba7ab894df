/**
 * `make bench` (never part of `make test`; DESIGN.md 5: a test never asserts a wall-clock time).
 *
 * One local fake upstream, and the same requests sent five ways: directly to it, through a bare node:http
 * pass-through (the limit of any proxy), through a plain express 5 pass-through (the framework's ceiling),
 * through the peer gateway (Portkey, portkey-peer.ts) and through this gateway's full path (auth, rate limit,
 * pre-flight hold and settle with the usage line), for non-stream chat, streaming chat and embeddings; this
 * gateway on the embedded default (SQLite, in-process limiter) and on PostgreSQL + Redis. Every server runs in a
 * process of its own; this process only generates load (undici, keep-alive). Ratios are taken between figures
 * measured in this one run, since absolute figures say more about the machine than about the gateway.
 *
 * First, per gateway, on the fresh process after a warm-up: 1,000 streams held open against a stalled upstream
 * while the gateway's VmRSS is sampled. Then per kind: a warm-up of every target, then each phase (sequential
 * requests, an open-loop fixed rate, a closed loop at fixed concurrency for peak throughput) run for every target
 * in turn (the sequential phase in ten rounds, the peak in four), so a drift in the machine's load falls on all
 * of them alike. Last, per gateway, the hostile phase (issue 23): a bystander's sequential chats, alone and then while
 * a key with no money keeps two chats in flight whose text the tokenizer once found quadratic (runs of U+3000,
 * NBSP, U+2003), which must be refused before anything is counted.
 * Results go to bench/results.json and bench/results.md.
 *
 * Usage: `node --import tsx test/bench/run.ts [--quick] [--no-build] [--embedded-only]`. --quick shortens
 * every phase but the 1,000 streams (to check the harness, not to read figures). BENCH_GATEWAY_NODE_FLAGS adds
 * node flags to the gateway processes only (to try a V8 heap sizing, say). BENCH_REDIS_URL and TEST_POSTGRES_URL
 * choose the services of the second configuration. Exit 0 when the run completed, whatever the
 * PASS/FAIL verdicts; 1 when the run itself broke.
 *
 * This file is longer than the 300-line convention because the whole run is one script by design (the
 * orchestration, the load generator and the report belong together and nothing else imports them).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Agent, type Dispatcher, request } from 'undici';
import { PROJECT_ROOT } from '../../src/lib/project-root.js';
import { type PostgresSchema, postgresSchema, TEST_POSTGRES_URL } from '../setup/databases.js';
import { sleep } from '../setup/time.js';
import { installPortkey, PORTKEY_VERSION, portkeyHeaders, startPortkey } from './portkey-peer.js';

const run = promisify(execFile);
const args = new Set(process.argv.slice(2));
const BENCH_USAGE =
  'usage: node --import tsx test/bench/run.ts [--quick] [--no-build] [--embedded-only] [--help]  (make bench BENCH_ARGS=...)';
const unknownArgs = [...args].filter(
  (arg) => !['--quick', '--no-build', '--embedded-only', '--help', '-h'].includes(arg),
);
if (args.has('--help') || args.has('-h') || unknownArgs.length > 0) {
  if (unknownArgs.length > 0) process.stderr.write(`unknown option ${unknownArgs.join(' ')}\n${BENCH_USAGE}\n`);
  else
    process.stdout.write(
      `${BENCH_USAGE}\nSee the top of test/bench/run.ts and bench/README.md for what it measures.\n`,
    );
  process.exit(unknownArgs.length > 0 ? 2 : 0);
}
const QUICK = args.has('--quick');
/** Shared with fake-upstream-server.ts (through its env): a chat carrying it is held open by the upstream. */
const HOLD_MARKER = '[bench:hold]';
const KINDS = ['chat', 'stream', 'embeddings'] as const;
type Kind = (typeof KINDS)[number];

const PLAN = {
  warmupRequests: QUICK ? 50 : 300,
  /**
   * Then a closed loop until this many requests (or warmupLoadMs) per target and kind: V8 tiers code up by how
   * often it runs, and a gateway process fresh from startup spends its first ~10,000 requests compiling on its
   * background threads, which take the client's and the upstream's share of the two cores (measured: 0.1-0.4 ms of
   * V8 worker CPU per request before, ~0.01 after). Without it the sequential phase measured startup, not the path.
   */
  warmupLoopRequests: QUICK ? 500 : 15_000,
  warmupLoadMs: QUICK ? 300 : 20_000,
  sequentialRequests: QUICK ? 200 : 2_000,
  sequentialRounds: 10,
  ratePerSec: 200,
  rateMs: QUICK ? 1_000 : 8_000,
  concurrency: 32,
  peakMs: QUICK ? 1_000 : 8_000,
  /** The peak phase in rounds that take the targets in turn, as the sequential phase does (peakMs in all per target). */
  peakRounds: 4,
  openStreams: 1_000,
  /**
   * How long the streams are held: long enough for V8's memory reducer to collect what the opening left behind (it
   * ran 30-40 s after the last stream opened, measured), so the RSS at the end is what the held streams cost.
   */
  streamHoldMs: QUICK ? 1_000 : 60_000,
  streamChunks: 16,
  embeddingDimensions: 1024,
  /** Hostile phase: bystander chats measured alone and again under attack, and the attacker's chats in flight. */
  hostileBystanderRequests: QUICK ? 100 : 1_000,
  hostileInFlight: 2,
};
/** Extra node flags for the gateway processes only (e.g. V8 heap sizing), to try a tuning; recorded in the results. */
const GATEWAY_NODE_FLAGS = (process.env.BENCH_GATEWAY_NODE_FLAGS ?? '').split(/\s+/).filter((flag) => flag !== '');
/** The whole run is bounded: past this, everything is stopped and the run fails. */
const WATCHDOG_MS = 25 * 60_000;

const BODIES: Record<Kind, string> = {
  chat: JSON.stringify({
    model: 'gpt-5-mini',
    messages: [{ role: 'user', content: 'Benchmark: one sentence about gateways.' }],
    max_tokens: 64,
  }),
  stream: JSON.stringify({
    model: 'gpt-5-mini',
    messages: [{ role: 'user', content: 'Benchmark: one sentence about gateways.' }],
    max_tokens: 64,
    stream: true,
    stream_options: { include_usage: true },
  }),
  embeddings: JSON.stringify({
    model: 'text-embedding-3-small',
    input: 'Benchmark: a sentence to embed.',
    encoding_format: 'float',
    dimensions: PLAN.embeddingDimensions,
  }),
};

/**
 * What the $0 key sends in the hostile phase: 16,200 ideographic spaces (under the inline limit; 1.8 s of main-thread
 * CPU each before counting was made linear and paid for) and 150,000 characters of mixed whitespace (the worker path).
 */
const HOSTILE_BODIES = [`x${'\u3000'.repeat(16_200)}x`, `x${' \u00a0\u2003\u3000'.repeat(37_500)}x`].map((content) =>
  JSON.stringify({ model: 'gpt-5-mini', messages: [{ role: 'user', content }], max_tokens: 1 }),
);

// ---------------------------------------------------------------------------------------------------------
// Processes
// ---------------------------------------------------------------------------------------------------------

interface Proc {
  name: string;
  child: ChildProcess;
  pid: number;
  origin: string;
}

const children: Proc[] = [];
const log = (line: string): void => void process.stderr.write(`${line}\n`);

/** Starts `node --import tsx <script>`, which prints `{"port": N}` once it listens; its stdin is its lifeline. */
async function startScript(name: string, script: string, env: Record<string, string>): Promise<Proc> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 30 s`)), 30_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const match = /\{"port":(\d+)\}/.exec(buffered);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before listening`)));
  });
  const proc = { name, child, pid: child.pid!, origin: `http://127.0.0.1:${port}` };
  children.push(proc);
  return proc;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Stops every child this run started (by pid), SIGKILL after 5 s. */
async function stopChildren(): Promise<void> {
  await Promise.all(
    children.splice(0).map(async ({ child }) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }),
  );
}

function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** V8's heap as the gateway's own /metrics reports it (used = live objects and not yet collected garbage). */
async function heapMb(origin: string): Promise<{ usedMb: number; totalMb: number }> {
  const text = await fetch(`${origin}/metrics`).then(
    (r) => r.text(),
    () => '',
  );
  const metric = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? Number.NaN) / 1048576;
  return { usedMb: metric('nodejs_heap_size_used_bytes'), totalMb: metric('nodejs_heap_size_total_bytes') };
}

// ---------------------------------------------------------------------------------------------------------
// The gateway under test
// ---------------------------------------------------------------------------------------------------------

interface Gateway extends Proc {
  apiKey: string;
  /** A key of an account with no money (the hostile phase). */
  brokeKey: string;
  rssAtStartMb: number;
  warnings: string[];
}

function upstreamsYaml(fakeOrigin: string): string {
  return [
    'providers:',
    '  fake:',
    '    type: openai',
    `    base_url: ${fakeOrigin}/v1`,
    '    idle_timeout_ms: 120000',
    'routes:',
    '  gpt-5-mini:',
    '    - provider: fake',
    '      model: gpt-5-mini',
    '      cost: { input_usd_per_mtok: 0.2, output_usd_per_mtok: 1.6 }',
    '  text-embedding-3-small:',
    '    - provider: fake',
    '      model: text-embedding-3-small',
    '      cost: { input_usd_per_mtok: 0.012 }',
    '',
  ].join('\n');
}

async function admin(env: Record<string, string>, ...command: string[]): Promise<Record<string, string>> {
  const { stdout } = await run('npm', ['run', '--silent', 'admin', '--', ...command], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env },
  });
  return JSON.parse(stdout) as Record<string, string>;
}

/** An account with limits far above anything the run sends, and `balanceUsd` (null: no money); answers its API key. */
async function benchAccount(
  storage: Record<string, string>,
  email: string,
  balanceUsd: string | null,
): Promise<string> {
  const account = await admin(
    storage,
    'accounts',
    'create',
    '--email',
    email,
    ...(balanceUsd === null ? [] : ['--balance-usd', balanceUsd]),
  );
  await admin(storage, 'keys', 'limit', '--key-id', account.key_id!, '--per-minute', '1000000000');
  await admin(storage, 'accounts', 'limit', '--account', account.account_id!, '--per-minute', '1000000000');
  return account.api_key!;
}

/** An account with a large balance, one with none (the hostile phase), then the gateway itself. */
async function startGateway(name: string, upstreamsFile: string, storage: Record<string, string>): Promise<Gateway> {
  const apiKey = await benchAccount(storage, `bench-${name}-${Date.now()}@example.com`, '1000000');
  const brokeKey = await benchAccount(storage, `bench-${name}-broke-${Date.now()}@example.com`, null);
  const port = await freePort();
  const env = {
    ...process.env,
    ...storage,
    NODE_ENV: 'production',
    MALLOC_ARENA_MAX: '1', // as the Dockerfile and `make run` start it
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: String(port),
    UPSTREAMS_FILE: upstreamsFile,
  };
  const child = spawn(process.execPath, [...GATEWAY_NODE_FLAGS, 'dist/src/main.js'], {
    cwd: PROJECT_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const warnings: string[] = [];
  // Always read the log pipe: a full pipe would block the gateway.
  child.stdout!.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n'))
      if (line.trim() !== '' && warnings.length < 50) warnings.push(line.slice(0, 400));
  });
  const gateway: Gateway = {
    name,
    child,
    pid: child.pid!,
    origin: `http://127.0.0.1:${port}`,
    apiKey,
    brokeKey,
    rssAtStartMb: 0,
    warnings,
  };
  children.push(gateway);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`gateway ${name} exited with ${child.exitCode}: ${warnings.join('\n')}`);
    const ok = await fetch(`${gateway.origin}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`gateway ${name} not healthy within 60 s`);
    await sleep(200);
  }
  gateway.rssAtStartMb = rssMb(gateway.pid);
  return gateway;
}

// ---------------------------------------------------------------------------------------------------------
// Load generation
// ---------------------------------------------------------------------------------------------------------

interface Target {
  name: string;
  origin: string;
  paths: Record<Kind, string>;
  headers: Record<string, string>;
}

const OPENAI_PATHS: Record<Kind, string> = {
  chat: '/v1/chat/completions',
  stream: '/v1/chat/completions',
  embeddings: '/v1/embeddings',
};
const COMPAT_PATHS: Record<Kind, string> = {
  chat: '/v1/compat/chat/completions',
  stream: '/v1/compat/chat/completions',
  embeddings: '/v1/compat/embeddings',
};
const loadAgent = new Agent({
  keepAliveTimeout: 30_000,
  keepAliveMaxTimeout: 60_000,
  connections: null,
  pipelining: 1,
});

function target(
  name: string,
  origin: string,
  paths: Record<Kind, string>,
  apiKey = 'sk-bench',
  extra: Record<string, string> = {},
): Target {
  return {
    name,
    origin,
    paths,
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${apiKey}`,
      'user-agent': 'compute-gateway-bench/1',
      ...extra,
    },
  };
}

/** One request, its whole answer read; the time in ms, or null on any failure. */
async function send(t: Target, kind: Kind, dispatcher: Dispatcher = loadAgent): Promise<number | null> {
  const started = performance.now();
  try {
    const { statusCode, body } = await request(t.origin + t.paths[kind], {
      method: 'POST',
      headers: t.headers,
      body: BODIES[kind],
      dispatcher,
    });
    for await (const _ of body) void _;
    return statusCode === 200 ? performance.now() - started : null;
  } catch {
    return null;
  }
}

/** Checks that the target answers each kind as the OpenAI wire format says, before anything is timed. */
async function probe(t: Target, kind: Kind): Promise<void> {
  const { statusCode, body } = await request(t.origin + t.paths[kind], {
    method: 'POST',
    headers: t.headers,
    body: BODIES[kind],
    dispatcher: loadAgent,
  });
  const text = await body.text();
  const fail = (why: string) => new Error(`${t.name} ${kind}: ${why}: ${statusCode} ${text.slice(0, 300)}`);
  if (statusCode !== 200) throw fail('not 200');
  if (kind === 'stream') {
    if (!text.trimEnd().endsWith('data: [DONE]') || !text.includes('"usage"'))
      throw fail('not a complete stream with usage');
    return;
  }
  const json = JSON.parse(text) as {
    choices?: { message?: { content?: string } }[];
    data?: { embedding?: unknown[] }[];
  };
  if (kind === 'chat' && !(json.choices?.[0]?.message?.content ?? '')) throw fail('no content');
  if (kind === 'embeddings' && json.data?.[0]?.embedding?.length !== PLAN.embeddingDimensions)
    throw fail('wrong vector size');
}

interface Latencies {
  n: number;
  errors: number;
  p50: number;
  p99: number;
  mean: number;
}

function summarise(samples: (number | null)[]): Latencies {
  const ok = samples.filter((s): s is number => s !== null).sort((a, b) => a - b);
  const at = (p: number) => ok[Math.max(0, Math.ceil(p * ok.length) - 1)] ?? Number.NaN;
  return {
    n: ok.length,
    errors: samples.length - ok.length,
    p50: at(0.5),
    p99: at(0.99),
    mean: ok.reduce((a, b) => a + b, 0) / (ok.length || 1),
  };
}

async function sequential(t: Target, kind: Kind, n: number): Promise<(number | null)[]> {
  const samples: (number | null)[] = [];
  for (let i = 0; i < n; i++) samples.push(await send(t, kind));
  return samples;
}

/**
 * Open loop: request i is dispatched at start + i/rate whether or not earlier ones have answered, so a server
 * that falls behind queues work instead of slowing the client down. Latency counts from the actual dispatch
 * (timer slop of up to a millisecond would otherwise be added to every target alike).
 */
async function fixedRate(t: Target, kind: Kind, perSec: number, ms: number): Promise<(number | null)[]> {
  const total = Math.round((perSec * ms) / 1000);
  const intervalMs = 1000 / perSec;
  const pending: Promise<number | null>[] = [];
  const start = performance.now();
  for (let i = 0; i < total; i++) {
    const wait = start + i * intervalMs - performance.now();
    if (wait >= 1) await sleep(wait);
    pending.push(send(t, kind));
  }
  return Promise.all(pending);
}

interface PeakRun {
  samples: (number | null)[];
  /** Requests answered before the deadline, and the time they had: the answers still in flight then are not counted. */
  completed: number;
  seconds: number;
}

/** Closed loop at fixed concurrency for `ms` (or until `maxRequests` were sent). */
async function closedLoop(
  t: Target,
  kind: Kind,
  concurrency: number,
  ms: number,
  maxRequests = Infinity,
): Promise<PeakRun> {
  const samples: (number | null)[] = [];
  const start = performance.now();
  const deadline = start + ms;
  let sent = 0;
  let completed = 0;
  const worker = async () => {
    while (performance.now() < deadline && sent++ < maxRequests) {
      const sample = await send(t, kind);
      samples.push(sample);
      if (sample !== null && performance.now() <= deadline) completed++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { samples, completed, seconds: (Math.min(performance.now(), deadline) - start) / 1000 };
}

/** Completed requests per second over one or more closed-loop runs of a target, with the latencies of all of them. */
function peakOf(runs: PeakRun[]): Cell['peak'] {
  const { n, errors, p50, p99 } = summarise(runs.flatMap((run) => run.samples));
  const completed = runs.reduce((sum, run) => sum + run.completed, 0);
  const seconds = runs.reduce((sum, run) => sum + run.seconds, 0);
  return { rps: completed / seconds, requests: n, errors, p50, p99 };
}

interface Cell {
  sequential: Latencies;
  fixedRate: Latencies & { perSec: number };
  peak: { rps: number; requests: number; errors: number; p50: number; p99: number };
}

/** One kind, every target: warm-ups first, then each phase for every target in turn (interleaved, see above). */
async function measureKind(targets: Target[], kind: Kind): Promise<Cell[]> {
  for (const t of targets) {
    await probe(t, kind);
    await sequential(t, kind, PLAN.warmupRequests);
    await closedLoop(t, kind, PLAN.concurrency, PLAN.warmupLoadMs, PLAN.warmupLoopRequests);
  }
  // Sequential requests in rounds, every target in turn in each, so a minute of a busier machine falls on all alike.
  const seqSamples: (number | null)[][] = targets.map(() => []);
  for (let round = 0; round < PLAN.sequentialRounds; round++) {
    for (const [i, t] of targets.entries())
      seqSamples[i]!.push(...(await sequential(t, kind, PLAN.sequentialRequests / PLAN.sequentialRounds)));
  }
  const seqs = seqSamples.map(summarise);
  const rates: Cell['fixedRate'][] = [];
  for (const t of targets)
    rates.push({ ...summarise(await fixedRate(t, kind, PLAN.ratePerSec, PLAN.rateMs)), perSec: PLAN.ratePerSec });
  // Peak in rounds too, every other round in reverse order, so that no target always follows the same neighbour.
  const peakRuns: PeakRun[][] = targets.map(() => []);
  for (let round = 0; round < PLAN.peakRounds; round++) {
    const order = round % 2 === 0 ? [...targets.keys()] : [...targets.keys()].reverse();
    for (const i of order)
      peakRuns[i]!.push(await closedLoop(targets[i]!, kind, PLAN.concurrency, PLAN.peakMs / PLAN.peakRounds));
  }
  const peaks = peakRuns.map(peakOf);
  const f = (x: number) => x.toFixed(2);
  return targets.map((t, i) => {
    const [seq, rate, top] = [seqs[i]!, rates[i]!, peaks[i]!];
    log(
      `  ${kind.padEnd(10)} ${t.name.padEnd(18)} seq ${f(seq.p50)}/${f(seq.p99)} ms  rate ${f(rate.p50)}/${f(rate.p99)} ms  peak ${top.rps.toFixed(0)} req/s  errors ${seq.errors + rate.errors + top.errors}`,
    );
    return { sequential: seq, fixedRate: rate, peak: top };
  });
}

// ---------------------------------------------------------------------------------------------------------
// 1,000 open streams: the gateway's memory while it holds them
// ---------------------------------------------------------------------------------------------------------

interface StreamsRss {
  wanted: number;
  opened: number;
  rssBeforeMb: number;
  rssPeakMb: number;
  rssHeldMb: number;
  /** At the end of the hold: the streams and what is live, once V8 collected the garbage of their opening. */
  rssSettledMb: number;
  rssAfterReleaseMb: number;
  heapBefore: { usedMb: number; totalMb: number };
  heapHeld: { usedMb: number; totalMb: number };
  /** Why the first stream that failed to open failed, if one did. */
  firstError: string | null;
}

/**
 * Opens `n` streams whose upstream sends one chunk and then stays silent, waits until each has delivered its
 * first frame to us (so the gateway is past its first-token hold and forwarding), holds them, samples VmRSS all
 * along, then hangs up on all of them.
 */
async function holdStreams(gateway: Gateway, n: number, holdMs: number): Promise<StreamsRss> {
  const agent = new Agent({ connections: null, keepAliveTimeout: 1_000 });
  const t = target(gateway.name, gateway.origin, COMPAT_PATHS, gateway.apiKey);
  const body = JSON.stringify({
    model: 'gpt-5-mini',
    messages: [{ role: 'user', content: `${HOLD_MARKER} keep this stream open` }],
    max_tokens: 64,
    stream: true,
  });
  const heapBefore = await heapMb(gateway.origin);
  const rssBeforeMb = rssMb(gateway.pid);
  let rssPeakMb = rssBeforeMb;
  const sampler = setInterval(() => (rssPeakMb = Math.max(rssPeakMb, rssMb(gateway.pid))), 100);
  const held: Dispatcher.ResponseData['body'][] = [];
  const openOne = async (): Promise<void> => {
    const { statusCode, body: answer } = await request(t.origin + t.paths.stream, {
      method: 'POST',
      headers: t.headers,
      body,
      dispatcher: agent,
    });
    held.push(answer);
    const first = await answer[Symbol.asyncIterator]().next();
    if (statusCode !== 200 || first.done === true) throw new Error(`stream not opened: ${statusCode}`);
  };
  let opened = 0;
  let firstError: string | null = null;
  try {
    for (let i = 0; i < n; i += 50) {
      const batch = await Promise.allSettled(Array.from({ length: Math.min(50, n - i) }, openOne));
      opened += batch.filter((r) => r.status === 'fulfilled').length;
      const failure = batch.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      firstError ??= failure === undefined ? null : String(failure.reason);
    }
    const samples: number[] = [];
    for (const end = Date.now() + holdMs; Date.now() < end; await sleep(100)) samples.push(rssMb(gateway.pid));
    const rssHeldMb = Math.max(...samples);
    const rssSettledMb = samples.at(-1)!;
    const heapHeld = await heapMb(gateway.origin);
    clearInterval(sampler);
    rssPeakMb = Math.max(rssPeakMb, rssHeldMb);
    for (const answer of held) answer.destroy();
    await agent.destroy();
    await sleep(2_000);
    return {
      wanted: n,
      opened,
      rssBeforeMb,
      rssPeakMb,
      rssHeldMb,
      rssSettledMb,
      rssAfterReleaseMb: rssMb(gateway.pid),
      heapBefore,
      heapHeld,
      firstError,
    };
  } finally {
    clearInterval(sampler);
    for (const answer of held) answer.destroy();
    await agent.destroy().catch(() => undefined);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Hostile phase: a bystander's chats while a $0 key sends text that was once costly to count
// ---------------------------------------------------------------------------------------------------------

interface HostilePhase {
  alone: Latencies;
  underAttack: Latencies;
  /** The $0 key's requests during the attack, by HTTP status (0: no answer). */
  hostileStatuses: Record<string, number>;
}

/** Sends HOSTILE_BODIES in turn until `stop()`, one at a time, counting the answers' statuses. */
async function attack(t: Target, stop: () => boolean, statuses: Record<string, number>): Promise<void> {
  for (let i = 0; !stop(); i++) {
    let status = 0;
    try {
      const { statusCode, body } = await request(t.origin + t.paths.chat, {
        method: 'POST',
        headers: t.headers,
        body: HOSTILE_BODIES[i % HOSTILE_BODIES.length]!,
        dispatcher: loadAgent,
      });
      await body.dump();
      status = statusCode;
    } catch {
      // counted as status 0
    }
    statuses[status] = (statuses[status] ?? 0) + 1;
  }
}

async function measureHostile(gateway: Gateway): Promise<HostilePhase> {
  const bystander = target(`gateway-${gateway.name}`, gateway.origin, COMPAT_PATHS, gateway.apiKey);
  const attacker = target(`gateway-${gateway.name}-broke`, gateway.origin, COMPAT_PATHS, gateway.brokeKey);
  const alone = summarise(await sequential(bystander, 'chat', PLAN.hostileBystanderRequests));
  const hostileStatuses: Record<string, number> = {};
  let done = false;
  const attackers = Array.from({ length: PLAN.hostileInFlight }, () => attack(attacker, () => done, hostileStatuses));
  const underAttack = summarise(await sequential(bystander, 'chat', PLAN.hostileBystanderRequests));
  done = true;
  await Promise.all(attackers);
  const f = (x: number) => x.toFixed(2);
  log(
    `  hostile    gateway-${gateway.name.padEnd(10)} bystander ${f(alone.p50)}/${f(alone.p99)} ms alone, ${f(underAttack.p50)}/${f(underAttack.p99)} ms under attack; $0 key: ${JSON.stringify(hostileStatuses)}`,
  );
  return { alone, underAttack, hostileStatuses };
}

// ---------------------------------------------------------------------------------------------------------
// Verdicts and the report
// ---------------------------------------------------------------------------------------------------------

interface Check {
  name: string;
  threshold: string;
  measured: string;
  pass: boolean;
}

interface Configuration {
  name: string;
  label: string;
  /** The embedded default (its targets are the stricter ones). */
  embedded: boolean;
  gateway: Partial<Record<Kind, Cell>>;
  rss: {
    atStartMb: number;
    afterLoadMb: number;
    heapAfterLoad: { usedMb: number; totalMb: number } | null;
    streams: StreamsRss | null;
  };
  hostile: HostilePhase | null;
  warnings: string[];
  checks: Check[];
  skipped?: string;
}

const BASELINES = ['direct', 'bare', 'express', 'portkey'] as const;
type Baseline = (typeof BASELINES)[number];
type Baselines = Record<Kind, Record<Baseline, Cell>>;

/**
 * The targets (issue 29 item 3), all as ratios or differences within this run. For non-stream chat: peak throughput
 * against Portkey's (embedded ≥ 3×, PostgreSQL + Redis ≥ 2×), added p50 in the sequential phase no higher than
 * Portkey's (both), and, embedded, added p99 in the sequential phase ≤ 3 ms. Every kind: no errors. The 1,000 open
 * streams are reported, not judged.
 */
function checksFor(config: Configuration, baselines: Baselines): Check[] {
  const checks: Check[] = [];
  const ms = (x: number) => `${x.toFixed(2)} ms`;
  const added = (cell: Cell, direct: Cell, at: 'p50' | 'p99') => cell.sequential[at] - direct.sequential[at];
  const chat = config.gateway.chat;
  if (chat !== undefined) {
    const { direct, portkey } = baselines.chat;
    const ratio = chat.peak.rps / portkey.peak.rps;
    const needed = config.embedded ? 3 : 2;
    checks.push({
      name: 'chat: peak req/s vs Portkey',
      threshold: `≥ ${needed.toFixed(1)}×`,
      measured: `${ratio.toFixed(2)}×`,
      pass: ratio >= needed,
    });
    const p50 = added(chat, direct, 'p50');
    const p50Limit = added(portkey, direct, 'p50');
    checks.push({
      name: 'chat: added p50, sequential',
      threshold: `≤ ${ms(p50Limit)} (Portkey’s)`,
      measured: ms(p50),
      pass: p50 <= p50Limit,
    });
    if (config.embedded) {
      const p99 = added(chat, direct, 'p99');
      checks.push({ name: 'chat: added p99, sequential', threshold: '≤ 3.00 ms', measured: ms(p99), pass: p99 <= 3 });
    }
  }
  for (const kind of KINDS) {
    const cell = config.gateway[kind];
    if (cell === undefined) continue;
    const errors = cell.sequential.errors + cell.fixedRate.errors + cell.peak.errors;
    checks.push({ name: `${kind}: errors`, threshold: '0', measured: String(errors), pass: errors === 0 });
  }
  const streams = config.rss.streams;
  if (streams !== null) {
    // Issue 29 item 4: what the held streams cost once the garbage of their opening is collected.
    checks.push({
      name: `${streams.wanted} open streams: RSS settled`,
      threshold: '≤ 150 MB',
      measured: `${streams.rssSettledMb.toFixed(0)} MB (${streams.opened} open)`,
      pass: streams.opened === streams.wanted && streams.rssSettledMb <= 150,
    });
  }
  if (config.hostile !== null) {
    const { hostileStatuses: statuses, underAttack } = config.hostile;
    const refused = Object.keys(statuses).every((status) => status === '402');
    checks.push({
      name: 'hostile: every $0 request answered 402',
      threshold: 'only 402',
      measured: JSON.stringify(statuses),
      pass: refused && underAttack.errors === 0,
    });
  }
  return checks;
}

const n2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '–');
const pct = (x: number) => `${(x * 100).toFixed(0)} %`;

function tableFor(config: Configuration, baselines: Baselines): string[] {
  const lines = [
    '| kind | target | seq p50 | seq p99 | rate p50 | rate p99 | peak req/s | added seq p50 / p99 | added rate p50 / p99 | peak vs Portkey | peak vs express | errors |',
    '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
  ];
  for (const kind of KINDS) {
    const base = baselines[kind];
    const rows: [string, Cell | undefined][] = [
      ['direct', base.direct],
      ['bare node:http proxy', base.bare],
      ['express 5 proxy', base.express],
      [`Portkey ${PORTKEY_VERSION}`, base.portkey],
      [`gateway (${config.name})`, config.gateway[kind]],
    ];
    for (const [name, cell] of rows) {
      if (cell === undefined) continue;
      const added = (a: Latencies, d: Latencies) => `${n2(a.p50 - d.p50)} / ${n2(a.p99 - d.p99)}`;
      const errors = cell.sequential.errors + cell.fixedRate.errors + cell.peak.errors;
      const saturated = cell.peak.rps < cell.fixedRate.perSec ? ' †' : '';
      lines.push(
        `| ${kind} | ${name} | ${n2(cell.sequential.p50)} | ${n2(cell.sequential.p99)} | ${n2(cell.fixedRate.p50)}${saturated} | ${n2(cell.fixedRate.p99)}${saturated} | ${cell.peak.rps.toFixed(0)} | ` +
          `${name === 'direct' ? '–' : added(cell.sequential, base.direct.sequential)} | ${name === 'direct' ? '–' : added(cell.fixedRate, base.direct.fixedRate)} | ` +
          `${pct(cell.peak.rps / base.portkey.peak.rps)} | ${pct(cell.peak.rps / base.express.peak.rps)} | ${errors} |`,
      );
    }
  }
  return lines;
}

function hostileLines(hostile: HostilePhase | null): string[] {
  if (hostile === null) return [];
  const { alone, underAttack } = hostile;
  return [
    `Hostile phase: a bystander's ${PLAN.hostileBystanderRequests} sequential chats, alone and while a $0 key kept ${PLAN.hostileInFlight} chats in flight ` +
      `(16,200 × U+3000, and 150,000 characters of mixed whitespace; answered ${JSON.stringify(hostile.hostileStatuses)} by status):`,
    '',
    '| bystander chat | p50 | p99 | errors |',
    '|---|--:|--:|--:|',
    `| alone | ${n2(alone.p50)} | ${n2(alone.p99)} | ${alone.errors} |`,
    `| under attack | ${n2(underAttack.p50)} | ${n2(underAttack.p99)} | ${underAttack.errors} |`,
    '',
  ];
}

function markdown(meta: Record<string, unknown>, baselines: Baselines, configs: Configuration[]): string {
  const out = [
    '# Benchmark results',
    '',
    `Generated by \`make bench\` (test/bench/run.ts) on ${String(meta.date)}: Node ${String(meta.node)}, ${String(meta.cpus)} × ${String(meta.cpuModel)}, commit ${String(meta.commit)}, ` +
      `load average ${String(meta.loadAvgStart)} at the start and ${String(meta.loadAvgEnd)} at the end, ${String(meta.durationSec)} s` +
      `${GATEWAY_NODE_FLAGS.length > 0 ? `, gateway node flags \`${GATEWAY_NODE_FLAGS.join(' ')}\`` : ''}${QUICK ? ' (--quick run: figures not meaningful)' : ''}.`,
    '',
    `Latencies in ms, as the client sees them: from sending the request to the last byte of the answer (the whole stream, ${PLAN.streamChunks} content chunks, for streaming chat). ` +
      `Each target is first warmed up with ${PLAN.warmupRequests} sequential requests and a closed loop of ${PLAN.warmupLoopRequests} (or ${PLAN.warmupLoadMs / 1000} s) per kind, so that V8 has compiled its hot code. ` +
      `Sequential: ${PLAN.sequentialRequests} requests one at a time, in ${PLAN.sequentialRounds} rounds that take the targets in turn. Fixed rate: ${PLAN.ratePerSec} req/s for ${PLAN.rateMs / 1000} s, open loop. ` +
      `Peak: completed req/s with ${PLAN.concurrency} requests in flight for ${PLAN.peakMs / 1000} s, in ${PLAN.peakRounds} rounds that take the targets in turn (answers still in flight at the end of a round are not counted). Embeddings: one input, ${PLAN.embeddingDimensions} dimensions, float. ` +
      '"Added" is the target\'s percentile minus the direct percentile of the same phase. The fake upstream, each proxy and each gateway run in their own processes; ' +
      "the client, the upstream and the server under test share the machine's cores, so peak figures are relative, not capacities. " +
      `Portkey ${PORTKEY_VERSION} (the peer, npm \`@portkey-ai/gateway\`, production mode, routed with \`x-portkey-provider: openai\` and \`x-portkey-custom-host\`) ` +
      'sees the same fake upstream. Each phase runs every target in turn. direct, bare, express and Portkey rows are measured once and shown in both tables.',
    '',
  ];
  for (const config of configs) {
    out.push(`## ${config.label}`, '');
    if (config.skipped !== undefined) {
      out.push(`Skipped: ${config.skipped}`, '');
      continue;
    }
    out.push(
      ...tableFor(config, baselines),
      '',
      `† peak throughput below the fixed rate (${PLAN.ratePerSec} req/s): requests queued, so those figures are queueing time.`,
      '',
    );
    const s = config.rss.streams;
    const heap = (h: { usedMb: number; totalMb: number } | null) =>
      h === null ? '' : ` (V8 heap ${h.usedMb.toFixed(0)} MB used of ${h.totalMb.toFixed(0)} MB)`;
    out.push(
      `Gateway memory: RSS ${config.rss.atStartMb.toFixed(1)} MB just after start` +
        (s === null
          ? ''
          : `; on that fresh process, after a warm-up: ${s.rssBeforeMb.toFixed(1)} MB${heap(s.heapBefore)}, then ${s.rssHeldMb.toFixed(1)} MB at most while ${s.opened}/${s.wanted} streams were held open and ${s.rssSettledMb.toFixed(1)} MB after ${PLAN.streamHoldMs / 1000} s of it${heap(s.heapHeld)}, ` +
            `${s.rssPeakMb.toFixed(1)} MB at most from the first opening on, ${s.rssAfterReleaseMb.toFixed(1)} MB 2 s after they were closed`) +
        `; ${config.rss.afterLoadMb.toFixed(1)} MB after all the load phases${heap(config.rss.heapAfterLoad)}.`,
      '',
      ...hostileLines(config.hostile),
      'Targets:',
      '',
      '| check | target | measured | result |',
      '|---|---|---|---|',
      ...config.checks.map((c) => `| ${c.name} | ${c.threshold} | ${c.measured} | ${c.pass ? 'PASS' : 'FAIL'} |`),
      '',
    );
    if (config.warnings.length > 0)
      out.push(
        `Gateway log lines at warn or above: ${config.warnings.length}; first: \`${config.warnings[0]!.replaceAll('`', "'")}\``,
        '',
      );
  }
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------------------------

function postgresUrl(schema: string): string {
  const separator = TEST_POSTGRES_URL.includes('?') ? '&' : '?';
  return `${TEST_POSTGRES_URL}${separator}options=-c%20search_path%3D${schema}`;
}

function newConfiguration(name: string, label: string, embedded: boolean): Configuration {
  return {
    name,
    label,
    embedded,
    gateway: {},
    rss: { atStartMb: Number.NaN, afterLoadMb: Number.NaN, heapAfterLoad: null, streams: null },
    hostile: null,
    warnings: [],
    checks: [],
  };
}

/** The scale-out gateway on a fresh PostgreSQL schema and the local Redis; null (with the reason) when they are missing. */
async function startScaleGateway(
  upstreamsFile: string,
  config: Configuration,
): Promise<{ gateway: Gateway; pg: PostgresSchema } | null> {
  let pg: PostgresSchema | null = null;
  try {
    pg = await postgresSchema();
    const storage = {
      DATABASE_URL: postgresUrl(pg.schema),
      REDIS_URL: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    };
    return { gateway: await startGateway('scale', upstreamsFile, storage), pg };
  } catch (err) {
    await pg?.drop().catch(() => undefined);
    config.skipped = `could not start on PostgreSQL + Redis: ${err instanceof Error ? err.message : String(err)}`;
    log(`bench: ${config.skipped}`);
    return null;
  }
}

/** The commit the build came from, "+dirty" when the working tree had changes (others may be editing it). */
async function gitCommit(): Promise<string> {
  try {
    const head = (await run('git', ['rev-parse', '--short', 'HEAD'], { cwd: PROJECT_ROOT })).stdout.trim();
    const changes = (
      await run('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: PROJECT_ROOT })
    ).stdout.trim();
    return changes === '' ? head : `${head}+dirty`;
  } catch {
    return 'unknown';
  }
}

async function measureAll(
  baselineTargets: Record<Baseline, Target>,
  gateways: [Configuration, Gateway][],
): Promise<Baselines> {
  const baselines = {} as Baselines;
  for (const kind of KINDS) {
    const gatewayTargets = gateways.map(([config, gateway]) =>
      target(`gateway-${config.name}`, gateway.origin, COMPAT_PATHS, gateway.apiKey),
    );
    const cells = await measureKind([...BASELINES.map((name) => baselineTargets[name]), ...gatewayTargets], kind);
    baselines[kind] = Object.fromEntries(BASELINES.map((name, i) => [name, cells[i]!])) as Record<Baseline, Cell>;
    gateways.forEach(([config], i) => (config.gateway[kind] = cells[BASELINES.length + i]));
  }
  return baselines;
}

interface Servers {
  baselineTargets: Record<Baseline, Target>;
  gateways: [Configuration, Gateway][];
  configs: Configuration[];
  pg: PostgresSchema | null;
}

/** The fake upstream, both proxies, and a gateway per configuration, each in its own process. */
async function startServers(tmp: string): Promise<Servers> {
  const fake = await startScript('fake-upstream', 'test/bench/fake-upstream-server.ts', {
    BENCH_STREAM_CHUNKS: String(PLAN.streamChunks),
    BENCH_HOLD_MARKER: HOLD_MARKER,
  });
  const bare = await startScript('bare-proxy', 'test/bench/bare-proxy.ts', { UPSTREAM_URL: fake.origin });
  const express = await startScript('express-proxy', 'test/bench/express-proxy.ts', { UPSTREAM_URL: fake.origin });
  await installPortkey(log);
  const portkeyPort = await freePort();
  const portkey = await startPortkey(portkeyPort);
  children.push({ name: 'portkey', child: portkey, pid: portkey.pid!, origin: `http://127.0.0.1:${portkeyPort}` });
  const upstreamsFile = join(tmp, 'upstreams.yaml');
  writeFileSync(upstreamsFile, upstreamsYaml(fake.origin));
  const embedded = newConfiguration('embedded', 'Embedded default: SQLite file, in-process rate limiter', true);
  const scale = newConfiguration('scale', 'PostgreSQL + Redis', false);
  const gateways: [Configuration, Gateway][] = [
    [embedded, await startGateway('embedded', upstreamsFile, { DATABASE_URL: `sqlite:${join(tmp, 'bench.sqlite')}` })],
  ];
  let pg: PostgresSchema | null = null;
  if (args.has('--embedded-only')) scale.skipped = '--embedded-only';
  else {
    const started = await startScaleGateway(upstreamsFile, scale);
    if (started !== null) {
      pg = started.pg;
      gateways.push([scale, started.gateway]);
    }
  }
  const baselineTargets = {
    direct: target('direct', fake.origin, OPENAI_PATHS),
    bare: target('bare-proxy', bare.origin, OPENAI_PATHS),
    express: target('express-proxy', express.origin, OPENAI_PATHS),
    portkey: target(
      'portkey',
      `http://127.0.0.1:${portkeyPort}`,
      OPENAI_PATHS,
      'sk-bench',
      portkeyHeaders(fake.origin),
    ),
  };
  return { baselineTargets, gateways, configs: [embedded, scale], pg };
}

/** Memory first, on fresh (warmed-up) processes, so that what the load phases leave on the heap is not counted. */
async function measureStreamsMemory(gateways: [Configuration, Gateway][]): Promise<void> {
  for (const [config, gateway] of gateways) {
    const t = target(`gateway-${config.name}`, gateway.origin, COMPAT_PATHS, gateway.apiKey);
    for (const kind of KINDS) await sequential(t, kind, PLAN.warmupRequests);
    config.rss.atStartMb = gateway.rssAtStartMb;
    config.rss.streams = await holdStreams(gateway, PLAN.openStreams, PLAN.streamHoldMs);
    const st = config.rss.streams;
    log(
      `  streams    gateway-${config.name.padEnd(10)} ${st.opened}/${st.wanted} open, RSS ${st.rssBeforeMb.toFixed(1)} → ${st.rssHeldMb.toFixed(1)} MB held at most, ${st.rssSettledMb.toFixed(1)} MB settled, ${st.rssAfterReleaseMb.toFixed(1)} MB after`,
    );
    if (st.firstError !== null) log(`  streams    first failure: ${st.firstError}`);
  }
}

function writeResults(meta: Record<string, unknown>, baselines: Baselines, configs: Configuration[]): void {
  mkdirSync(join(PROJECT_ROOT, 'bench'), { recursive: true });
  writeFileSync(
    join(PROJECT_ROOT, 'bench/results.json'),
    `${JSON.stringify({ meta, baselines, configurations: configs }, null, 2)}\n`,
  );
  writeFileSync(join(PROJECT_ROOT, 'bench/results.md'), `${markdown(meta, baselines, configs)}\n`);
  const failed = configs.flatMap((c) =>
    c.checks
      .filter((check) => !check.pass)
      .map((check) => `${c.name}: ${check.name} ${check.measured} (target ${check.threshold})`),
  );
  log(
    `bench: done in ${String(meta.durationSec)} s; bench/results.md written; ${failed.length === 0 ? 'every target PASS' : `FAIL:\n  ${failed.join('\n  ')}`}`,
  );
}

async function main(): Promise<void> {
  const startedAt = Date.now();
  const loadAvgStart = loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  const commit = await gitCommit();
  if (!args.has('--no-build')) {
    log('bench: npm run build');
    await run('npm', ['run', 'build'], { cwd: PROJECT_ROOT });
  }
  const tmp = mkdtempSync(join(tmpdir(), 'cgw-bench-'));
  let pg: PostgresSchema | null = null;
  try {
    const servers = await startServers(tmp);
    pg = servers.pg;
    log(`bench: servers up in ${((Date.now() - startedAt) / 1000).toFixed(0)} s`);
    await measureStreamsMemory(servers.gateways);
    log('bench: measuring latency and throughput');
    const baselines = await measureAll(servers.baselineTargets, servers.gateways);
    log('bench: hostile phase');
    for (const [config, gateway] of servers.gateways) config.hostile = await measureHostile(gateway);
    for (const [config, gateway] of servers.gateways) {
      config.rss.afterLoadMb = rssMb(gateway.pid);
      config.rss.heapAfterLoad = await heapMb(gateway.origin);
      const healthy = await fetch(`${gateway.origin}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (!healthy) throw new Error(`gateway ${config.name} is not healthy after the run`);
      config.warnings = gateway.warnings;
    }
    for (const config of servers.configs)
      if (config.skipped === undefined) config.checks = checksFor(config, baselines);
    const meta = {
      date: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      commit,
      loadAvgStart,
      loadAvgEnd: loadavg()
        .map((x) => x.toFixed(2))
        .join(' '),
      quick: QUICK,
      gatewayNodeFlags: GATEWAY_NODE_FLAGS.join(' '),
      plan: PLAN,
      peer: `@portkey-ai/gateway@${PORTKEY_VERSION}`,
      durationSec: Math.round((Date.now() - startedAt) / 1000),
    };
    writeResults(meta, baselines, servers.configs);
  } finally {
    await stopChildren();
    await loadAgent.close().catch(() => undefined);
    await pg?.drop().catch((err: unknown) => log(`bench: could not drop the PostgreSQL schema: ${String(err)}`));
    rmSync(tmp, { recursive: true, force: true });
  }
}

const watchdog = setTimeout(() => {
  log(`bench: still running after ${WATCHDOG_MS / 60_000} minutes; stopping`);
  void stopChildren().finally(() => process.exit(1));
}, WATCHDOG_MS);
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void stopChildren().finally(() => process.exit(1)));

try {
  await main();
  clearTimeout(watchdog);
} catch (err) {
  log(`bench: failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  clearTimeout(watchdog);
  process.exitCode = 1;
}
