/**
 * The real server process (`src/main.ts`) for tests that kill it: started on a database URL with extra
 * settings, resolved once it listens; and the databases such tests run on (a SQLite file, a PostgreSQL schema).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { SqlApiKeyStore } from '../../src/adapters/api-keys/sql.js';
import { openLedger } from '../../src/adapters/ledger/open.js';
import { connectDatabase, type Database } from '../../src/db/connect.js';
import { createAccount, issueKey } from '../../src/domain/accounts/accounts.js';
import { topUp } from '../../src/domain/billing/top-up.js';
import { postgresSchema, TEST_POSTGRES_URL } from './databases.js';

export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  /** What it wrote to stderr so far (also passed on to this process's stderr). */
  stderr: () => string;
}

export function startServerProcess(databaseUrl: string, env: Record<string, string>): Promise<ServerProcess> {
  return spawnGateway({ ...process.env, DATABASE_URL: databaseUrl, PORT: '0', LOG_LEVEL: 'info', ...env });
}

/**
 * A gateway that has not said it listens by then is killed: generous, since on a busy machine compiling and starting
 * one has taken over 25 s; within the 120 s an integration suite's setup may take (vitest.config.ts).
 */
const STARTUP_LIMIT_MS = 90_000;

/** `src/main.ts` with exactly this environment, answered once it logs that it listens (with its port). */
export function spawnGateway(env: NodeJS.ProcessEnv): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    process.stderr.write(chunk);
  });
  // Whatever a suite's teardown missed (a setup that gave up before it held the child) dies with the test worker.
  const orphanGuard = () => child.kill('SIGKILL');
  process.once('exit', orphanGuard);
  child.once('exit', () => process.off('exit', orphanGuard));
  return new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not listen within ${STARTUP_LIMIT_MS} ms: ${buffered.slice(-500)}`));
    }, STARTUP_LIMIT_MS);
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const port = listeningPort(buffered);
      if (port === null) return;
      clearTimeout(timer);
      resolve({ child, baseUrl: `http://127.0.0.1:${port}`, stderr: () => stderr });
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(
        new Error(`server exited (${code ?? signal}) before listening: ${stderr.slice(-500) || buffered.slice(-500)}`),
      );
    });
  });
}

export interface GatewayExit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `src/main.ts` with exactly this environment, run to its exit (a start that a setting stops). */
export function runGatewayToExit(env: NodeJS.ProcessEnv, limitMs = STARTUP_LIMIT_MS): Promise<GatewayExit> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/main.ts'],
      { env, timeout: limitMs, killSignal: 'SIGKILL' },
      (err, stdout, stderr) => {
        resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : null, stdout, stderr });
      },
    );
  });
}

/** The port of the log line saying the gateway listens (other lines may carry ports of their own). */
function listeningPort(output: string): number | null {
  for (const line of output.split('\n')) {
    if (!line.includes('"compute-gateway listening"')) continue;
    const port = /"port":(\d+)/.exec(line)?.[1];
    if (port !== undefined) return Number(port);
  }
  return null;
}

/** `count` accounts with a key each and `openingMicros` on their balance. */
export async function openAccounts(
  db: Database,
  count: number,
  openingMicros: bigint,
): Promise<{ accountId: string; apiKey: string }[]> {
  const apiKeys = new SqlApiKeyStore(db);
  const ledger = openLedger(db);
  const accounts = [];
  for (let i = 0; i < count; i++) {
    const account = await createAccount(apiKeys, { email: `process-${i}-${Date.now()}-${Math.random()}@example.com` });
    const { secret } = await issueKey(apiKeys, account.id);
    await topUp(ledger, apiKeys, {
      accountId: account.id,
      usdMicros: openingMicros,
      marketRateMicro: 90_000_000n,
      nowMs: Date.now(),
    });
    accounts.push({ accountId: account.id, apiKey: secret });
  }
  await ledger.drain();
  return accounts;
}

/** The databases a server process is killed on: a new SQLite file under `dir`, and a new PostgreSQL schema. */
export function processBackends(dir: () => string) {
  return [
    {
      name: 'SQLite file',
      open: async () => ({ url: `sqlite:${join(dir(), `gateway-${Date.now()}.sqlite`)}`, drop: async () => undefined }),
    },
    {
      name: 'PostgreSQL',
      open: async () => {
        const pg = await postgresSchema();
        await pg.db.knex.destroy();
        const url = `${TEST_POSTGRES_URL}?options=-c%20search_path%3D${pg.schema}`;
        return {
          url,
          drop: async () => {
            const root = connectDatabase(TEST_POSTGRES_URL);
            await root.knex.raw('drop schema if exists ?? cascade', [pg.schema]).finally(() => root.knex.destroy());
          },
        };
      },
    },
  ];
}
