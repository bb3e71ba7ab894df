/**
 * `make soak` (never part of `make test`): a day of load in an hour. Three gateway processes on one PostgreSQL schema
 * and one Redis (test/setup/gateway-fleet.ts, DESIGN.md 13), a fake upstream in a process of its own, one well-funded
 * account, and a steady mixed load (load.ts) for `--minutes`; every `--interval` seconds each process's /metrics is
 * read (RSS, heap, open fds, event-loop delay) with the client's latency over the window. At the end: the books
 * (ledger = usage, books.ts), whether any figure grows (trends.ts), and bench/soak/soak.md, soak.json and soak.png.
 *
 * Usage: `node --import tsx test/soak/run.ts [--minutes N] [--rps N] [--interval S]` (make soak SOAK_ARGS=...);
 * SOAK_MINUTES sets the default duration (30). TEST_POSTGRES_URL and TEST_REDIS_URL choose the services. Exit 0 when
 * nothing grew and the books hold, 1 when something did not or the run itself broke, 2 on a bad option.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT } from '../../src/lib/project-root.js';
import { GatewayFleet } from '../setup/gateway-fleet.js';
import { openAccounts } from '../setup/server-process.js';
import { sleep } from '../setup/time.js';
import { removeUpstreamsFiles } from '../setup/upstreams.js';
import { checkBooks } from './books.js';
import { MixedLoad } from './load.js';
import { sampleProcess } from './metrics.js';
import { writePlot } from './plot.js';
import { failures, json, markdown, type Outcome, type RunInfo } from './report.js';
import { percentile, type Sample, trends } from './trends.js';
import { type SoakUpstream, startUpstream } from './upstream.js';

const USAGE =
  'usage: node --import tsx test/soak/run.ts [--minutes N] [--rps N] [--interval S]  (make soak SOAK_ARGS=...)';
const PROCESSES = 3;
/** $1,000,000: far more than any run spends, so no call is ever refused for money. */
const OPENING_MICROS = 1_000_000_000_000n;
const OUT_DIR = join(PROJECT_ROOT, 'bench/soak');
const log = (line: string): void => void process.stderr.write(`soak: ${line}\n`);

function badOption(why: string): never {
  process.stderr.write(`${why}\n${USAGE}\n`);
  process.exit(2);
}

function options(): { minutes: number; rps: number; intervalSec: number } {
  let values: { minutes: string; rps: string; interval: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: {
        minutes: { type: 'string', default: process.env.SOAK_MINUTES ?? '30' },
        rps: { type: 'string', default: '20' },
        interval: { type: 'string', default: '10' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    badOption(err instanceof Error ? err.message : String(err));
  }
  if (values.help === true) {
    process.stdout.write(`${USAGE}\nSee the top of test/soak/run.ts and bench/README.md for what it measures.\n`);
    process.exit(0);
  }
  const parsed = { minutes: Number(values.minutes), rps: Number(values.rps), intervalSec: Number(values.interval) };
  if (!Object.values(parsed).every((v) => Number.isFinite(v) && v > 0)) badOption('every option is a number above 0');
  return parsed;
}

function gitCommit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: PROJECT_ROOT }).toString().trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: PROJECT_ROOT });
    return dirty.toString().trim() === '' ? head : `${head}+dirty`;
  } catch {
    return 'unknown';
  }
}

const load1 = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/** Samples every process and takes the load's window, every `intervalSec` until `untilMs`. */
async function sampleUntil(fleet: GatewayFleet, load: MixedLoad, intervalSec: number, untilMs: number) {
  const samples: Sample[] = [];
  const startedAt = Date.now();
  for (let next = startedAt + intervalSec * 1000; next <= untilMs; next += intervalSec * 1000) {
    await sleep(Math.max(0, next - Date.now()));
    const processes = await Promise.all(fleet.servers.map((s) => sampleProcess(s.baseUrl)));
    const window = load.takeWindow();
    const sample: Sample = {
      atSec: Math.round((Date.now() - startedAt) / 1000),
      processes,
      p50Ms: percentile(window.latenciesMs, 50),
      p99Ms: percentile(window.latenciesMs, 99),
      requests: window.requests,
      polls: window.polls,
      errors: window.errors,
    };
    samples.push(sample);
    const rss = processes.map((p) => p.rssMb.toFixed(0)).join('/');
    const fds = processes.map((p) => p.fds).join('/');
    log(
      `${(sample.atSec / 60).toFixed(1)} min: RSS ${rss} MB, fds ${fds}, p99 ${sample.p99Ms.toFixed(1)} ms, ` +
        `${sample.requests} calls, ${sample.errors} errors`,
    );
  }
  return samples;
}

async function soak(fleet: GatewayFleet, info: RunInfo): Promise<Outcome> {
  const [account] = await openAccounts(fleet.db, 1, OPENING_MICROS);
  const origins = fleet.servers.map((s) => s.baseUrl);
  const load = new MixedLoad({ origins, apiKey: account!.apiKey, rps: info.rps, maxInFlight: 500 });
  log(`load at ${info.rps} calls/s for ${info.minutes} min, a sample every ${info.intervalSec} s`);
  load.start();
  const samples = await sampleUntil(fleet, load, info.intervalSec, Date.now() + info.minutes * 60_000);
  log('stopping the load; waiting for the calls and jobs under way');
  await load.stop();
  const exited = fleet.servers.flatMap((s, i) => (s.child.exitCode === null && s.child.signalCode === null ? [] : [i]));
  log('checking the books');
  const books = await checkBooks(fleet.db, account!.accountId, OPENING_MICROS, load.billable, load.failedIds);
  info.loadAvgEnd = load1();
  return { info, samples, trends: trends(samples), books, totals: load.totals, firstErrors: load.firstErrors, exited };
}

async function writeOutcome(outcome: Outcome): Promise<void> {
  mkdirSync(OUT_DIR, { recursive: true });
  writeFileSync(join(OUT_DIR, 'soak.md'), `${markdown(outcome)}\n`);
  writeFileSync(join(OUT_DIR, 'soak.json'), json(outcome));
  const { info } = outcome;
  const title = `Soak: ${info.processes} gateways, ${info.rps} calls/s, ${info.minutes} min (${info.date.slice(0, 16)}, ${info.commit})`;
  await writePlot(outcome.samples, title, join(OUT_DIR, 'soak.png'));
}

/** Everything this run started, stopped in turn; each step runs even when one before it failed. */
async function cleanUp(fleet: GatewayFleet | null, upstream: SoakUpstream | null): Promise<void> {
  await fleet?.close().catch((err: unknown) => log(`could not stop the fleet cleanly: ${String(err)}`));
  await upstream?.stop().catch(() => undefined);
  removeUpstreamsFiles();
}

async function main(): Promise<number> {
  const { minutes, rps, intervalSec } = options();
  const info: RunInfo = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}`,
    commit: gitCommit(),
    loadAvgStart: load1(),
    loadAvgEnd: '',
    minutes,
    rps,
    intervalSec,
    processes: PROCESSES,
  };
  let fleet: GatewayFleet | null = null;
  let upstream: SoakUpstream | null = null;
  const interrupted = () => void cleanUp(fleet, upstream).finally(() => process.exit(130));
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  // Bounds a hang (a stuck drain, a job never done): the run is minutes long plus its end.
  const watchdog = setTimeout(
    () => {
      log('still running 15 minutes past its end; stopping');
      void cleanUp(fleet, upstream).finally(() => process.exit(1));
    },
    (minutes + 15) * 60_000,
  );
  try {
    upstream = await startUpstream();
    log(`starting ${PROCESSES} gateway processes on PostgreSQL + Redis`);
    fleet = await GatewayFleet.start(PROCESSES, {
      env: {
        UPSTREAMS_FILE: upstream.upstreamsFile,
        // The soak measures the processes, not the limiter: one key sends every call.
        RATE_LIMIT_PER_KEY_PER_MINUTE: '100000000',
        RATE_LIMIT_PER_ACCOUNT_PER_MINUTE: '100000000',
      },
    });
    const outcome = await soak(fleet, info);
    await writeOutcome(outcome);
    const failed = failures(outcome);
    log(`bench/soak/soak.md and soak.png written; ${failed.length === 0 ? 'PASS' : `FAIL:\n  ${failed.join('\n  ')}`}`);
    return failed.length === 0 ? 0 : 1;
  } finally {
    clearTimeout(watchdog);
    await cleanUp(fleet, upstream);
  }
}

try {
  process.exitCode = await main();
} catch (err) {
  log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 1;
}
