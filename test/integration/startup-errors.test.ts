/**
 * The real server process (`src/main.ts`) started with one bad setting at a time: it ends with one line on stderr
 * naming the setting and what is wrong, exit code 2 and no stack trace (issue 24), and checks the port first.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayExit, runGatewayToExit } from '../setup/server-process.js';

/** A database password that must never be printed. */
const PASSWORD = 'hunter2-secret';
let dir: string;
let busy: Server;
let busyPort: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cgw-startup-'));
  writeFileSync(join(dir, 'not-json.json'), '{"models": [');
  writeFileSync(join(dir, 'not-yaml.yaml'), 'providers: {sandbox: [\n');
  writeFileSync(join(dir, 'a-file'), '');
  busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  busyPort = (busy.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise((resolve) => busy.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

/** A start that would succeed but for `bad`: its own SQLite file and directories, any free port, no SSH sockets. */
function start(bad: Record<string, string>): Promise<GatewayExit> {
  const env = {
    ...process.env,
    DATABASE_URL: `sqlite:${join(dir, `ok-${Math.random()}.sqlite`)}`,
    PORT: '0',
    LOG_LEVEL: 'warn',
    SSH_PROXY: 'off',
    CHARGE_JOURNAL_DIR: join(dir, 'pending-charges'),
    BLOB_DIR: join(dir, 'files'),
  };
  return runGatewayToExit({ ...env, ...bad });
}

/** Exit 2 and a last stderr line that names the setting; no stack trace anywhere. */
function expectStopped(exit: GatewayExit, setting: string, problem: RegExp): void {
  expect(exit.code, exit.stderr).toBe(2);
  const lines = exit.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(new RegExp(`^compute-gateway cannot start: ${setting}: `));
  expect(lines[0]).toMatch(problem);
  expect(exit.stderr + exit.stdout).not.toMatch(/\n\s+at /);
  expect(exit.stderr).not.toContain(PASSWORD);
}

describe('a misconfigured start ends with one line naming the setting, exit code 2', () => {
  // Settings as functions: the scratch directory exists only once the suite has started.
  const at = (name: string) => join(dir, name);
  it.each([
    [
      'a CATALOG_FILE that is not JSON',
      () => ({ CATALOG_FILE: at('not-json.json') }),
      'CATALOG_FILE',
      /not-json\.json: .*JSON/,
    ],
    [
      'a missing CATALOG_FILE',
      () => ({ CATALOG_FILE: at('missing.json') }),
      'CATALOG_FILE',
      /ENOENT: no such file or directory, open '.*missing\.json'/,
    ],
    [
      'an UPSTREAMS_FILE that does not parse',
      () => ({ UPSTREAMS_FILE: at('not-yaml.yaml') }),
      'UPSTREAMS_FILE',
      /not-yaml\.yaml:\d+: /,
    ],
    [
      'a missing UPSTREAMS_FILE',
      () => ({ UPSTREAMS_FILE: at('missing.yaml') }),
      'UPSTREAMS_FILE',
      /ENOENT: no such file or directory, open '.*missing\.yaml'/,
    ],
    [
      'an unreachable PostgreSQL',
      () => ({ DATABASE_URL: `postgres://postgres:${PASSWORD}@127.0.0.1:1/test` }),
      'DATABASE_URL',
      /postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/test: connect ECONNREFUSED/,
    ],
    [
      'a SQLite path whose parent is a file',
      () => ({ DATABASE_URL: `sqlite:${at('a-file')}/gateway.sqlite` }),
      'DATABASE_URL',
      /cannot create the directory .*a-file: a file is in its path/,
    ],
    ['a setting of the wrong type', () => ({ PORT: 'eighty' }), 'PORT', /expected number/],
  ])('%s', async (_label, bad, setting, problem) => {
    expectStopped(await start(bad()), setting, problem);
  });

  it('a port in use, said before the catalog, the upstreams and the database are even read', async () => {
    const exit = await start({
      PORT: String(busyPort),
      CATALOG_FILE: join(dir, 'missing.json'),
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/test',
    });
    expectStopped(exit, 'PORT', new RegExp(`${busyPort} is already in use on 127\\.0\\.0\\.1`));
  });
});
