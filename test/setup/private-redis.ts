/**
 * A Redis server of a test's own, for fault tests that kill and restart it: the machine's shared Redis serves other
 * suites at the same time and must never go away under them. No persistence (`--save ""`, no AOF), so a restart
 * comes back empty, as a Redis without persistence does after a crash. `kill()` and `start()` keep the port, so
 * clients configured with its URL reconnect to the new server.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { closedPortUrl } from '../fixtures/fake-upstream.js';
import { sleep } from './time.js';

/** Generous: on a loaded machine a fork and exec can take seconds. */
const START_LIMIT_MS = 30_000;
const EXIT_LIMIT_MS = 15_000;

export interface PrivateRedis {
  url: string;
  port: number;
  /** Whether a server is running now. */
  readonly running: boolean;
  /** Kills the server (SIGKILL: no goodbye to its clients) and waits for it to be gone. */
  kill(): Promise<void>;
  /** Starts a new server on the same port; resolves once it answers PING. */
  start(): Promise<void>;
  /** A client of the test's own (closed by `destroy`). */
  client(): Redis;
  /** Kills the server if running and closes the test's clients; safe to call more than once, and after a failure. */
  destroy(): Promise<void>;
}

/** The redis-server binary on PATH (or TEST_REDIS_SERVER), or null: a suite then skips, saying why. */
export function redisServerBinary(): string | null {
  const candidate = process.env.TEST_REDIS_SERVER ?? 'redis-server';
  try {
    execFileSync(candidate, ['--version'], { stdio: 'ignore' });
    return candidate;
  } catch {
    return null;
  }
}

export async function startPrivateRedis(binary = redisServerBinary() ?? 'redis-server'): Promise<PrivateRedis> {
  const port = Number(new URL(await closedPortUrl()).port);
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;
  let log = '';
  const clients: Redis[] = [];
  // Whatever a teardown missed dies with the test worker.
  const orphanGuard = () => child?.kill('SIGKILL');
  process.once('exit', orphanGuard);

  const start = async () => {
    if (child !== null) throw new Error('private redis: already running');
    log = '';
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
    const started = spawn(binary, [...args, '--daemonize', 'no', '--protected-mode', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = started;
    started.stdout!.on('data', (chunk: Buffer) => void (log += chunk.toString()));
    started.stderr!.on('data', (chunk: Buffer) => void (log += chunk.toString()));
    started.once('exit', () => {
      if (child === started) child = null;
    });
    await untilAnswers(
      url,
      () => child === started,
      () => log,
    );
  };

  const kill = async () => {
    const running = child;
    if (running === null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGKILL');
    await Promise.race([exited, sleep(EXIT_LIMIT_MS)]);
    if (child === running) throw new Error('private redis: still running after SIGKILL');
  };

  try {
    await start();
  } catch (err) {
    await kill().catch(() => undefined);
    process.off('exit', orphanGuard);
    throw err;
  }
  return {
    url,
    port,
    get running() {
      return child !== null;
    },
    kill,
    start,
    client: () => {
      const client = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 1 });
      client.on('error', () => undefined); // a killed server is the point of these tests
      clients.push(client);
      return client;
    },
    destroy: async () => {
      for (const client of clients.splice(0)) client.disconnect();
      await kill().catch(() => undefined);
      process.off('exit', orphanGuard);
    },
  };
}

/** Resolves once the server at `url` answers PING; rejects when it exits first or START_LIMIT_MS passes. */
async function untilAnswers(url: string, alive: () => boolean, log: () => string): Promise<void> {
  const giveUpAt = Date.now() + START_LIMIT_MS;
  while (Date.now() < giveUpAt) {
    if (!alive()) throw new Error(`private redis exited at start: ${log().slice(-500)}`);
    const probe = new Redis(url, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      if ((await probe.ping()) === 'PONG') return;
    } catch {
      // Not listening yet.
    } finally {
      probe.disconnect();
    }
    await sleep(50);
  }
  throw new Error(`private redis did not answer within ${START_LIMIT_MS} ms: ${log().slice(-500)}`);
}
