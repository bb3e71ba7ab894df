/**
 * A real gateway on a random loopback port, with response validation ON, an in-memory SQLite database and a
 * log that tests can read. Contract tests talk to it over HTTP with fetch, exactly as a client would.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { pino } from 'pino';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { buildDeps, type Deps } from '../../src/container.js';
import { createAccount, issueKey } from '../../src/domain/accounts.js';

export interface Harness {
  baseUrl: string;
  deps: Deps;
  /** JSON log lines at warn level and above. */
  logs: Record<string, unknown>[];
  /** A new account and one key for it. */
  newAccount(email?: string): Promise<{ accountId: string; apiKey: string; keyId: string }>;
  close(): Promise<void>;
}

let accountCounter = 0;

export async function startHarness(env: Record<string, string> = {}): Promise<Harness> {
  const config = loadConfig({
    DATABASE_URL: 'sqlite::memory:',
    VALIDATE_RESPONSES: 'true',
    API_KEY_CACHE_TTL_MS: '0',
    ...env,
  });
  const logs: Record<string, unknown>[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) });
  const deps = await buildDeps(config, logger);
  const server: Server = await new Promise((resolve) => {
    const s = createApp(deps).listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    deps,
    logs,
    async newAccount(email = `user${++accountCounter}-${Date.now()}@example.com`) {
      const account = await createAccount(deps.apiKeys, { email });
      const { record, secret } = await issueKey(deps.apiKeys, account.id);
      return { accountId: account.id, apiKey: secret, keyId: record.id };
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await deps.close();
    },
  };
}

export interface JsonResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** fetch with a JSON body in and out; never throws on an HTTP error status. */
export async function call<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  options: { key?: string; keyHeader?: 'bearer' | 'x-api-key'; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<JsonResponse<T>> {
  const headers: Record<string, string> = { 'user-agent': 'contract-tests/1', ...options.headers };
  if (options.key !== undefined) {
    if (options.keyHeader === 'x-api-key') headers['x-api-key'] = options.key;
    else headers.authorization = `Bearer ${options.key}`;
  }
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(baseUrl + path, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}
