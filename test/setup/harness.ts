/**
 * A real gateway on a random loopback port, with response validation enforced, an in-memory SQLite database and a
 * log that tests can read. Contract tests talk to it over HTTP with fetch, exactly as a client would.
 */

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { createApp } from '../../src/app.js';
import { buildDeps, type Deps } from '../../src/composition/index.js';
import { loadConfig } from '../../src/config.js';
import { createAccount, issueKey } from '../../src/domain/accounts/accounts.js';
import type { CallDetails, Charge } from '../../src/domain/billing/billing.js';
import { fxRateToMicro, usdToMicros } from '../../src/domain/billing/money.js';
import { topUp } from '../../src/domain/billing/top-up.js';
import { createHttpServer } from '../../src/http/http-server.js';
import { newId } from '../../src/lib/ids.js';
import { checkWithPrism } from './prism/replay.js';

export interface Harness {
  baseUrl: string;
  deps: Deps;
  /** JSON log lines at warn level and above. */
  logs: Record<string, unknown>[];
  /** A new account and one key for it, with an opening dollar top-up when `balanceUsd` is given. */
  newAccount(
    email?: string,
    options?: { balanceUsd?: number },
  ): Promise<{ accountId: string; apiKey: string; keyId: string }>;
  /** Credits a top-up; with `fxRate` it is a ruble top-up at that RUB/USD rate. */
  topUp(accountId: string, usd: number, fxRate?: number): Promise<void>;
  /** One billed call through the real billing flow (reserve `holdUsd`, settle `costUsd`), as a paid endpoint makes it. */
  spend(apiKey: string, costUsd: number, details?: Partial<CallDetails>, holdUsd?: number): Promise<Charge>;
  close(): Promise<void>;
}

let accountCounter = 0;

/**
 * 50 SSH proxy ports per harness, below Linux's ephemeral range (32768 up), where outgoing connections and `listen(0)`
 * take theirs: a port there can be taken by any socket on the machine between allocation and a client's connect.
 * Each vitest worker has its own stripe of 20 stretches and its harnesses take them in turn, so no two harnesses
 * open at once share a port.
 */
const PROXY_PORTS_BASE = 23_000; // above the default range, 22000-22999, of the gateway processes tests start
const STRETCH = 50;
const STRETCHES_PER_WORKER = 20;
let stretchCounter = Math.floor(Math.random() * STRETCHES_PER_WORKER);
function proxyPorts(): string {
  const worker = Number(process.env['VITEST_POOL_ID'] ?? '1') % 8;
  const stretch = worker * STRETCHES_PER_WORKER + (stretchCounter++ % STRETCHES_PER_WORKER);
  const first = PROXY_PORTS_BASE + stretch * STRETCH;
  return `${first}-${first + STRETCH - 1}`;
}

/** `now`: the service's clock (tests of time-driven billing move it by hand). */
export async function startHarness(
  env: Record<string, string> = {},
  options: { now?: () => number } = {},
): Promise<Harness> {
  const config = loadConfig({
    DATABASE_URL: 'sqlite::memory:',
    VALIDATE_RESPONSES: 'enforce',
    API_KEY_CACHE_TTL_MS: '0',
    // Suites present thousands of bad keys from 127.0.0.1 on purpose; the throttle has its own tests.
    AUTH_FAILURES_PER_MINUTE: '1000000',
    // Suites run side by side: each takes a free tunnel port and its own stretch of SSH proxy ports.
    TUNNEL_PORT: '0',
    SSH_PROXY_PORTS: proxyPorts(),
    ...env,
  });
  const logs: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'warn' },
    { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const deps = await buildDeps(config, logger, options.now);
  readAfterCharges(deps);
  const server: Server = createHttpServer(createApp(deps));
  checkWithPrism(server); // DESIGN.md 5, contract:live (test/setup/prism/)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const harness: Harness = {
    baseUrl: `http://127.0.0.1:${port}`,
    deps,
    logs,
    async newAccount(email = `user${++accountCounter}-${Date.now()}@example.com`, options = {}) {
      const account = await createAccount(deps.apiKeys, { email });
      const { record, secret } = await issueKey(deps.apiKeys, account.id);
      if (options.balanceUsd !== undefined) await harness.topUp(account.id, options.balanceUsd);
      return { accountId: account.id, apiKey: secret, keyId: record.id };
    },
    async topUp(accountId, usd, fxRate) {
      await topUp(deps.ledger, deps.apiKeys, {
        accountId,
        usdMicros: usdToMicros(usd),
        ...(fxRate === undefined ? {} : { rub: { fxRateRubMicro: fxRateToMicro(fxRate) } }),
        marketRateMicro: deps.marketFxRateRubMicro,
        nowMs: deps.now(),
      });
    },
    async spend(apiKey, costUsd, details = {}, holdUsd = costUsd) {
      const principal = await deps.authenticator.authenticate(apiKey);
      const reservation = await deps.billing.reserve(principal, newId('req'), usdToMicros(holdUsd));
      return deps.billing.settle(reservation, usdToMicros(costUsd), {
        model: 'gpt-5-mini',
        kind: 'chat',
        endpoint: '/v1/compat/chat/completions',
        ...details,
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await deps.close();
    },
  };
  return harness;
}

/**
 * Answers go out before their charge lands (docs/money.md): a test that reads money right after an
 * answer reads it as the caller's next request would, once the charges in flight have landed.
 */
function readAfterCharges(deps: Deps): void {
  const wrap = <T extends object>(target: T, names: (keyof T)[]) => {
    for (const name of names) {
      const read = (target[name] as (...args: unknown[]) => Promise<unknown>).bind(target);
      Object.assign(target, { [name]: async (...args: unknown[]) => (await deps.billing.drain(), read(...args)) });
    }
  };
  wrap(deps.ledger, ['getBalance', 'getHold', 'getTransfer', 'listLots', 'postedSpend', 'sumOfAllBalances']);
  wrap(deps.usageLog, ['list', 'get', 'totals', 'totalsByKey', 'daily']);
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
  options: {
    key?: string;
    keyHeader?: 'bearer' | 'x-api-key';
    body?: unknown;
    rawBody?: string;
    headers?: Record<string, string>;
  } = {},
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
  let parsed: unknown;
  try {
    parsed = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}
