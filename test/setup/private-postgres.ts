/**
 * A PostgreSQL server of a test's own, for fault tests that stop and restart it: the machine's shared server
 * (TEST_POSTGRES_URL) serves other suites at the same time and must never go away under them. A new cluster under
 * the temporary directory (initdb takes well under a second without fsync), listening on 127.0.0.1 on a free port
 * and on a socket in that directory. `stop()` and `start()` keep the port and the data, so the clients configured
 * with its URL reconnect to the restarted server and find their rows.
 *
 * initdb and the server refuse to run as root: as root they run as the `postgres` user (runuser), which owns the
 * directory. The binaries are those of the newest /usr/lib/postgresql/<version>/bin, or TEST_POSTGRES_BIN.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closedPortUrl } from '../fixtures/fake-upstream.js';

/** pg_ctl's own wait for a start or a stop, in seconds: generous, a loaded machine replays WAL slowly. */
const PG_CTL_WAIT_S = 60;
const PG_CTL_LIMIT_MS = (PG_CTL_WAIT_S + 15) * 1000;

/**
 * How the server goes away: `fast` is a clean restart (clients are disconnected, a checkpoint is written);
 * `immediate` is a crash as far as clients and data are concerned (no checkpoint; WAL replay at the next start).
 */
export type StopMode = 'fast' | 'immediate';

export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`, trust authentication. */
  url: string;
  port: number;
  readonly running: boolean;
  stop(mode?: StopMode): Promise<void>;
  /** Starts the server again on the same port and data; resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops the server if running (immediately) and removes its directory; safe after a failure, and twice. */
  destroy(): Promise<void>;
}

/** The directory holding initdb, pg_ctl and postgres, or null: a suite then skips, saying why. */
export function postgresBinDir(): string | null {
  const has = (dir: string) => ['initdb', 'pg_ctl', 'postgres'].every((bin) => existsSync(join(dir, bin)));
  if (process.env.TEST_POSTGRES_BIN !== undefined)
    return has(process.env.TEST_POSTGRES_BIN) ? process.env.TEST_POSTGRES_BIN : null;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  for (const version of versions) if (has(join(root, version, 'bin'))) return join(root, version, 'bin');
  return null;
}

/** Runs a PostgreSQL binary as the user that owns the cluster (postgres when this process is root). */
function runAs(asRoot: boolean, bin: string, args: string[]): Promise<string> {
  const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  return new Promise((resolve, reject) => {
    execFile(file, argv, { timeout: PG_CTL_LIMIT_MS, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      if (err === null) resolve(stdout);
      else reject(new Error(`${bin} ${args.join(' ')} failed: ${err.message}\n${stderr}`));
    });
  });
}

/** The uid and gid of the postgres user, for the directory it must own. */
function postgresOwner(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** One cluster under `dir`: its data, its log and its socket; the server runs as `postgres` when we are root. */
class Cluster implements PrivatePostgres {
  readonly url: string;
  running = false;
  private readonly data: string;
  /** Whatever a teardown missed is stopped with the test worker (synchronously: 'exit' handlers cannot wait). */
  private readonly orphanGuard = () => {
    const pid = postmasterPid(this.data);
    try {
      if (pid !== null) process.kill(pid, 'SIGQUIT'); // immediate shutdown: the server stops its backends too
    } catch {
      // Already gone.
    }
  };

  constructor(
    private readonly binDir: string,
    private readonly dir: string,
    readonly port: number,
    private readonly asRoot: boolean,
  ) {
    this.url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    this.data = join(dir, 'data');
    process.once('exit', this.orphanGuard);
  }

  async init(): Promise<void> {
    const args = ['-D', this.data, '--auth=trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync'];
    await runAs(this.asRoot, join(this.binDir, 'initdb'), args);
  }

  async start(): Promise<void> {
    // Durability settings off: the data is thrown away, and a loaded machine's fsyncs would slow every test.
    const options = `-p ${this.port} -h 127.0.0.1 -k ${this.dir} -c fsync=off -c full_page_writes=off`;
    const log = join(this.dir, 'server.log');
    await this.pgCtl(['start', '-D', this.data, '-l', log, '-w', '-t', String(PG_CTL_WAIT_S), '-o', options]);
    this.running = true;
  }

  async stop(mode: StopMode = 'fast'): Promise<void> {
    await this.pgCtl(['stop', '-D', this.data, '-m', mode, '-w', '-t', String(PG_CTL_WAIT_S)]);
    this.running = false;
  }

  async destroy(): Promise<void> {
    if (existsSync(join(this.data, 'postmaster.pid'))) await this.stop('immediate').catch(this.orphanGuard);
    this.running = false;
    process.off('exit', this.orphanGuard);
    rmSync(this.dir, { recursive: true, force: true });
  }

  private pgCtl(args: string[]): Promise<string> {
    return runAs(this.asRoot, join(this.binDir, 'pg_ctl'), args);
  }
}

/** A new cluster on a free port, started; the caller destroys it (afterAll), whatever happened. */
export async function startPrivatePostgres(binDir = postgresBinDir()): Promise<PrivatePostgres> {
  if (binDir === null) throw new Error('no PostgreSQL server binaries (initdb, pg_ctl, postgres) found');
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'cgw-private-pg-'));
  if (asRoot) {
    const { uid, gid } = postgresOwner();
    chownSync(dir, uid, gid);
  }
  const cluster = new Cluster(binDir, dir, Number(new URL(await closedPortUrl()).port), asRoot);
  try {
    await cluster.init();
    await cluster.start();
  } catch (err) {
    await cluster.destroy();
    throw err;
  }
  return cluster;
}

/** The server's pid from its lock file, or null when it is not running (or the file is unreadable). */
function postmasterPid(data: string): number | null {
  try {
    const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}
