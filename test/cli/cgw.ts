/**
 * Runs the built `cgw` (packages/cli/dist/main.js) as a child process, as a person or a script would, with its own
 * temporary XDG config dir, so tests never read or write a real profile.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { type Harness, startHarness } from '../setup/harness.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const CGW = join(ROOT, 'packages/cli/dist/main.js');

/** `make test` builds the packages first; a bare `vitest run --project cli` builds the tool here. */
export async function ensureBuilt(): Promise<void> {
  if (existsSync(CGW)) return;
  await promisify(execFile)(join(ROOT, 'node_modules/.bin/tsc'), ['-p', 'packages/cli/tsconfig.build.json'], {
    cwd: ROOT,
  });
}

export interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string>;
  input?: string;
  cwd?: string;
  /** Called with each stdout chunk as it arrives (streaming checks). */
  onStdout?: (chunk: string) => void;
}

/** A temporary home for one test: its config dir and a working dir for downloads. */
export async function tempHome(): Promise<{ dir: string; env: Record<string, string>; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'cgw-test-'));
  return {
    dir,
    env: { XDG_CONFIG_HOME: join(dir, 'config') },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

export function cgw(args: string[], options: RunOptions = {}): Promise<Result> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
  // The test's own environment must not pick a profile or a service.
  for (const name of ['CGW_API_KEY', 'CGW_BASE_URL', 'CGW_PROFILE']) {
    if (options.env?.[name] === undefined) delete env[name];
  }
  const child = spawn(process.execPath, [CGW, ...args], { env, cwd: options.cwd ?? tmpdir(), stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    options.onStdout?.(chunk);
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end(options.input ?? '');
  return new Promise((done, fail) => {
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

/** The one-line error format: `cgw: <message> (<code>, request <id>)`. */
export const ERROR_LINE = /^cgw: .+ \(([a-z0-9_]+)(, request [A-Za-z0-9_-]+)?\)\n$/;

/**
 * The service's public address as its links name it (PUBLIC_BASE_URL): a forwarding front started before the
 * harness, as a reverse proxy is in production, so a hosted file's signed link is fetched exactly as given.
 */
export async function publicFront(): Promise<{ url: string; target: (baseUrl: string) => void; close: () => void }> {
  let upstream = '';
  const server = createServer((request, response) => {
    const forward = httpRequest(`${upstream}${request.url ?? '/'}`, {
      method: request.method,
      headers: request.headers,
    });
    forward.on('response', (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    forward.on('error', () => response.destroy());
    request.pipe(forward);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    target: (baseUrl) => {
      upstream = baseUrl;
    },
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

export interface MediaSession {
  h: Harness;
  home: Awaited<ReturnType<typeof tempHome>>;
  /** The environment `cgw` runs with: the temporary home, a funded account's key, the harness. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** A harness behind its public front (hosted files are downloaded as linked), a funded key and a temporary home. */
export async function mediaSession(balanceUsd: number): Promise<MediaSession> {
  const front = await publicFront();
  const [h, home] = await Promise.all([startHarness({ PUBLIC_BASE_URL: front.url }), tempHome(), ensureBuilt()]);
  front.target(h.baseUrl);
  const { apiKey } = await h.newAccount(undefined, { balanceUsd });
  return {
    h,
    home,
    env: { ...home.env, CGW_API_KEY: apiKey, CGW_BASE_URL: h.baseUrl },
    async close() {
      front.close();
      await h.close();
      await home.cleanup();
    },
  };
}
