/**
 * Withdrawals across real processes (issue 27 items 4 and 7): the signer CLI run as a child process, a link between
 * the gateway processes and the fake java-tron node that can refuse broadcasts and records every one, and a
 * provider who signs up through a gateway process, turns the second factor on and earns from a renter's rental on it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { bytesToHex } from '@noble/hashes/utils.js';
import { Secret, TOTP } from 'otpauth';
import type { Database } from '../../src/db/connect.js';
import { freshEmail, PASSWORD, tokenIn } from './accounts.js';
import { expectNativeOk } from './envelopes.js';
import { call } from './harness.js';
import { MACHINE } from './market.js';
import { eventually } from './polling.js';
import { openAccounts } from './server-process.js';
import type { TestSmtpServer } from './smtp-server.js';

export interface NodeLink {
  /** The TRON_NODE_URL to give a process. */
  url: string;
  /** Every transaction sent to /wallet/broadcasthex through the link, as hex, refused or not. */
  broadcasts: string[];
  /** While true, a broadcast is answered HTTP 503 and never reaches the node (the node does not accept). */
  refuseBroadcasts: boolean;
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<string> {
  let raw = '';
  for await (const chunk of req) raw += chunk;
  return raw;
}

/** A loopback proxy in front of the node: what a process sends, as it sent it, and broadcasts refused on demand. */
export async function startNodeLink(nodeUrl: string): Promise<NodeLink> {
  const server = createServer(async (req, res) => {
    const raw = await body(req);
    const path = req.url ?? '/';
    if (path === '/wallet/broadcasthex') {
      link.broadcasts.push(String((JSON.parse(raw) as { transaction?: unknown }).transaction).toLowerCase());
      if (link.refuseBroadcasts) return void res.writeHead(503).end('node not accepting');
    }
    const answer = await fetch(nodeUrl + path, {
      method: 'POST',
      body: raw,
      headers: { 'content-type': 'application/json' },
    });
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
    res.end(await answer.text());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const link: NodeLink = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    broadcasts: [],
    refuseBroadcasts: false,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return link;
}

/** The hot wallet's key as the signer reads it: 64 hex digits in a file only its owner may read. */
export function writeSignerKeyFile(dir: string, key: Uint8Array): string {
  const path = join(dir, 'hot-wallet.key');
  writeFileSync(path, `${bytesToHex(key)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}

export interface SignerProcess {
  child: ChildProcess;
  /** Resolves once the signer logged that it started (its key read, its database open), before its first pass. */
  started: Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/** `node --import tsx src/signer/cli.ts --once` with `env` on top of this process's environment. */
export function startSigner(env: Record<string, string>): SignerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/signer/cli.ts', '--once'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const orphanGuard = () => child.kill('SIGKILL');
  process.once('exit', orphanGuard);
  let stdout = '';
  let stderr = '';
  let announce!: () => void;
  const started = new Promise<void>((resolve) => (announce = resolve));
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.includes('"signer started"')) announce();
  });
  child.stderr!.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve) =>
      child.once('exit', (code, signal) => {
        process.off('exit', orphanGuard);
        announce(); // a signer that died before it started never will: nobody waits for it
        resolve({ code, signal, stdout, stderr });
      }),
  );
  return { child, started, exited };
}

/** One whole `--once` pass of the signer; fails the test unless it exits 0. */
export async function runSignerOnce(env: Record<string, string>): Promise<string> {
  const { code, stdout, stderr } = await startSigner(env).exited;
  if (code !== 0) throw new Error(`the signer exited ${code}: ${stderr || stdout}`);
  return stdout;
}

export interface ProcessEarner {
  accountId: string;
  apiKey: string;
  accessToken: string;
  /**
   * A recovery code of its second factor not handed out before, for what needs the factor (an address, a
   * withdrawal). Not TOTP codes: the service's clock is the real one here, and each code would wait for a 30-second
   * step of its own (a step's code is accepted once).
   */
  secondFactor(): string;
}

/**
 * A person signed up through the gateway's API (its confirmation mail read from the test SMTP server), with the
 * second factor turned on, as withdrawals need: the ten recovery codes it was given.
 */
async function signUp(
  baseUrl: string,
  smtp: TestSmtpServer,
): Promise<{ accessToken: string; apiKey: string; recoveryCodes: string[] }> {
  const email = freshEmail('provider');
  const afterCount = smtp.received.length;
  expectNativeOk(await call(baseUrl, 'POST', '/v1/auth/signup', { body: { email, password: PASSWORD } }), 202);
  const mail = await eventually(async () => smtp.received.slice(afterCount).find((m) => m.envelopeTo.includes(email)));
  expectNativeOk(await call(baseUrl, 'POST', '/v1/auth/confirm', { body: { token: tokenIn(mail) } }));
  const session = expectNativeOk(
    await call(baseUrl, 'POST', '/v1/auth/sessions', { body: { email, password: PASSWORD } }),
    201,
  );
  const key = expectNativeOk(
    await call(baseUrl, 'POST', '/v1/llm/api-keys', { key: session.access_token, body: { name: 'agent' } }),
    201,
  );
  const enrolment = expectNativeOk(await call(baseUrl, 'POST', '/v1/auth/totp', { key: session.access_token }), 201);
  const app = new TOTP({ secret: Secret.fromBase32(enrolment.secret), algorithm: 'SHA1', digits: 6, period: 30 });
  const confirmed = expectNativeOk(
    await call(baseUrl, 'POST', '/v1/auth/totp/confirm', {
      key: session.access_token,
      body: { enrolment_token: enrolment.enrolment_token, code: app.generate() },
    }),
  );
  return { accessToken: session.access_token, apiKey: key.api_key, recoveryCodes: confirmed.recovery_codes };
}

/** The most a listing charges: 64 GPUs at $1,000 per GPU-hour, $17.78 a second, so a real second earns enough. */
const RIG = { ...MACHINE, gpu_count: 64, price_per_gpu_hour_usd: 1_000 };
const RENTER_MICROS = 70_000_000_000n; // an hour of the whole rig is reserved up front

/**
 * A provider who earned honestly on a gateway process: it registers a rig, a renter (topped up in the database)
 * rents all of it, the agent reports the container running for `runMs` of real time, and the renter deletes it.
 * The service's clock is the real one in another process, so the earning is made by a high price and a short wait.
 */
export async function earnOnProcess(
  baseUrl: string,
  smtp: TestSmtpServer,
  db: Database,
  runMs: number,
): Promise<ProcessEarner> {
  const { accessToken, apiKey, recoveryCodes } = await signUp(baseUrl, smtp);
  const machine = expectNativeOk(await call(baseUrl, 'POST', '/v1/provider/machines', { key: apiKey, body: RIG }), 201);
  const { account_id: accountId } = expectNativeOk(await call(baseUrl, 'GET', '/v1/account', { key: apiKey }));
  const [renter] = await openAccounts(db, 1, RENTER_MICROS);
  const rent = { offer_id: machine.machine_id, docker_image: 'ubuntu:24.04', pricing_type: 'hour', gpu_count: 64 };
  const rental = expectNativeOk(await call(baseUrl, 'POST', '/v1/instances', { key: renter!.apiKey, body: rent }), 201);
  const heartbeat = async () =>
    expectNativeOk(
      await call(baseUrl, 'POST', `/v1/provider/machines/${machine.machine_id}/heartbeat`, {
        key: apiKey,
        body: { containers: [{ instance_id: rental.task_id, state: 'running' }] },
      }),
    );
  await heartbeat();
  const runningSince = Date.now();
  // Real time passing while the container runs: waited for, however late this process is scheduled.
  await eventually(async () => (Date.now() - runningSince >= runMs ? true : undefined), runMs + 5_000, 'running time');
  await heartbeat();
  expectNativeOk(await call(baseUrl, 'DELETE', `/v1/instances/${rental.task_id}`, { key: renter!.apiKey }));
  const unused = [...recoveryCodes];
  return {
    accountId,
    apiKey,
    accessToken,
    secondFactor: () => {
      const code = unused.shift();
      if (code === undefined) throw new Error('every recovery code was used');
      return code;
    },
  };
}
