/**
 * The test worker's half of `contract:live` (global-setup.ts): every response a harness's gateway finishes is
 * recorded (status, headers, bytes) and its request replayed through Prism, whose upstream (via the router) is this
 * worker's replay server, which answers with the recording. Prism checks that answer against the contract and lists
 * what it finds in the sl-violations header; `hooks.ts` fails the test with them. The test itself saw the gateway's
 * own bytes, at the gateway's own pace.
 */
import {
  Agent,
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  request,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { inject } from 'vitest';
import { REPLAY_ID_HEADER, REPLAY_PORT_HEADER } from './replay-headers.js';

interface Recording {
  status: number;
  headers: OutgoingHttpHeaders;
  body: Buffer;
}

const recordings = new Map<string, Recording>();
const pending = new Set<Promise<void>>();
let findings: string[] = [];
let replayServer: Promise<Server> | undefined;
let nextId = 0;
/** Prism is one process for every worker: a few calls at a time each, not a socket per response of a burst. */
const agent = new Agent({ keepAlive: true, maxSockets: 4 });

/** Records `server`'s responses for Prism when the contract project runs (it provides `prismUrl`), else nothing. */
export function checkWithPrism(server: Server): void {
  const prismUrl = inject('prismUrl') as string | undefined;
  if (prismUrl === undefined) return;
  // Ahead of the app's own listener, so the response is wrapped before anything is written to it.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => record(req, res, prismUrl));
}

/** What Prism found since the last call, once every replay started so far has its verdict. */
export async function takeFindings(): Promise<string[]> {
  while (pending.size > 0) await Promise.all(pending);
  const taken = findings;
  findings = [];
  return taken;
}

export async function closeReplayServer(): Promise<void> {
  const server = await replayServer;
  replayServer = undefined;
  if (server !== undefined) await new Promise((resolve) => server.close(resolve));
}

/** Keeps a copy of every byte written; a response that never finishes (the client went away) is not replayed. */
function record(req: IncomingMessage, res: ServerResponse, prismUrl: string): void {
  const chunks: Buffer[] = [];
  const keep = (chunk: unknown, encoding: unknown) => {
    if (typeof chunk === 'string') chunks.push(Buffer.from(chunk, (encoding as BufferEncoding | undefined) ?? 'utf8'));
    else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
  };
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  Object.assign(res, {
    write: (...args: unknown[]) => (keep(args[0], args[1]), write(...args)),
    end: (...args: unknown[]) => (keep(args[0], args[1]), end(...args)),
  });
  res.once('finish', () => {
    const recording = { status: res.statusCode, headers: sentHeaders(res), body: Buffer.concat(chunks) };
    const replayed = replay(req, recording, prismUrl).catch((error: Error) => {
      findings.push(`${req.method} ${req.url}: Prism did not answer: ${error.message}`);
    });
    pending.add(replayed);
    void replayed.finally(() => pending.delete(replayed));
  });
}

/**
 * The header block as it went out: node keeps it on the response as `_header`. `getHeaders()` would miss the
 * headers given only to `writeHead`. Framing headers are left to the replay server's own node.
 */
function sentHeaders(res: ServerResponse): OutgoingHttpHeaders {
  const headers: Record<string, string | string[]> = {};
  for (const line of ((res as unknown as { _header?: string })._header ?? '').split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).toLowerCase();
    if (colon > 0 && !['connection', 'keep-alive', 'transfer-encoding'].includes(name)) {
      const value = line.slice(colon + 1).trim();
      const before = headers[name];
      headers[name] = before === undefined ? value : [before, value].flat();
    }
  }
  return headers;
}

async function replay(req: IncomingMessage, recording: Recording, prismUrl: string): Promise<void> {
  const id = String(++nextId);
  recordings.set(id, recording);
  try {
    const { port } = (await startedReplayServer()).address() as AddressInfo;
    const answer = await send(prismUrl, req, { [REPLAY_PORT_HEADER]: String(port), [REPLAY_ID_HEADER]: id });
    const label = `${req.method} ${req.url} answered ${recording.status}`;
    if (answer.headers[REPLAY_ID_HEADER] !== id) {
      findings.push(`${label}, but Prism answered ${answer.status} itself: ${answer.body}`);
      return;
    }
    for (const violation of responseViolations(answer.headers['sl-violations']))
      findings.push(`${label}: ${violation}`);
  } finally {
    recordings.delete(id);
  }
}

/**
 * The request again, without its body: Prism's request checks are off (global-setup.ts), and its body parser would
 * refuse the malformed JSON some tests send on purpose. Nothing else about the request changes a response check.
 */
function send(
  prismUrl: string,
  req: IncomingMessage,
  extra: Record<string, string>,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  const headers: IncomingHttpHeaders = { ...req.headers, ...extra };
  for (const name of ['host', 'content-length', 'transfer-encoding', 'connection', 'expect', 'upgrade']) {
    delete headers[name];
  }
  return new Promise((resolve, reject) => {
    const outgoing = request(`${prismUrl}${req.url}`, { method: req.method, headers, agent }, (answer) => {
      let body = '';
      answer.setEncoding('utf8');
      answer.on('data', (chunk: string) => void (body += chunk));
      answer.once('end', () => resolve({ status: answer.statusCode!, headers: answer.headers, body }));
      answer.once('error', reject);
    });
    outgoing.once('error', reject);
    outgoing.end();
  });
}

/** Prism's sl-violations header: a JSON list, cut at 8 KiB behind "Too many violations!" when longer. */
function responseViolations(header: string | string[] | undefined): string[] {
  if (header === undefined) return [];
  const text = Array.isArray(header) ? header.join(',') : header;
  if (!text.startsWith('[')) return [`Prism: ${text}`];
  const listed = JSON.parse(text) as { location: string[]; severity: string; message: string }[];
  return listed
    .filter((violation) => violation.location[0] === 'response')
    .map((violation) => `${violation.location.join('.')} ${violation.message} (${violation.severity})`);
}

/** This worker's upstream for Prism: answers a replay with the recording its id names, exactly as it was sent. */
function startedReplayServer(): Promise<Server> {
  replayServer ??= new Promise((resolve) => {
    const server = createServer((req, res) => {
      const id = String(req.headers[REPLAY_ID_HEADER]);
      const recording = recordings.get(id);
      if (recording === undefined) return void res.writeHead(410).end(`contract:live: no recording ${id}`);
      res.writeHead(recording.status, { ...recording.headers, [REPLAY_ID_HEADER]: id }).end(recording.body);
    });
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
  return replayServer;
}
