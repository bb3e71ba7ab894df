/**
 * The wire under the agent's Docker client (docker-engine.ts): one HTTP call to the Engine API over a unix socket
 * or a tcp address, Docker's `{"message": ...}` error bodies turned into DockerError, and the line-per-event
 * progress stream of a pull read to its end.
 */
import { type IncomingMessage, request } from 'node:http';
import { isRecord } from '../lib/is-record.js';

export const DOCKER_API_VERSION = 'v1.43';

export type DockerErrorKind =
  /** 404: no such container or image (also Docker's answer to pulling a repository that does not exist). */
  | 'not_found'
  /** 409: a container name in use, or removing a running container without force. */
  | 'conflict'
  /** The pull started, then failed (its progress stream carried an error line). */
  | 'pull_failed'
  /** No answer: the socket is missing, refused, closed early, or silent past the timeout. */
  | 'unreachable'
  | 'error';

export class DockerError extends Error {
  constructor(
    readonly kind: DockerErrorKind,
    /** The HTTP status Docker answered; 0 when it did not answer. */
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'DockerError';
  }
}

/** Where the daemon listens, as node:http's request options name it. */
export type DockerEndpoint = { socketPath: string } | { host: string; port: number };

/** DOCKER_HOST's forms the agent supports: a unix socket, or a plain-HTTP address (tests, a socket proxy). */
export function parseDockerHost(host: string): DockerEndpoint {
  if (host.startsWith('unix://')) return { socketPath: host.slice('unix://'.length) };
  if (host.startsWith('/')) return { socketPath: host };
  const url = URL.canParse(host) ? new URL(host) : null;
  if (url !== null && (url.protocol === 'tcp:' || url.protocol === 'http:') && url.port !== '') {
    return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) };
  }
  throw new Error(
    `unsupported Docker host "${host}": expected unix:///path, /path, tcp://host:port or http://host:port`,
  );
}

export interface DockerCall {
  method: 'GET' | 'POST' | 'DELETE';
  /** Below the version prefix: `/containers/create`. */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** The longest Docker may stay silent, answer and body alike. */
  timeoutMs: number;
  signal?: AbortSignal;
}

/** Sends one call; resolves with the answer whatever its status, its body unread. */
export function sendDockerCall(endpoint: DockerEndpoint, call: DockerCall): Promise<IncomingMessage> {
  const query = new URLSearchParams(call.query).toString();
  const payload = call.body === undefined ? undefined : JSON.stringify(call.body);
  return new Promise((resolve, reject) => {
    const req = request({
      ...endpoint,
      method: call.method,
      path: `/${DOCKER_API_VERSION}${call.path}${query === '' ? '' : `?${query}`}`,
      headers:
        payload === undefined
          ? {}
          : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) },
      ...(call.signal === undefined ? {} : { signal: call.signal }),
    });
    // An idle timeout on the socket, so it also bounds a body that stops coming, not a pull that keeps reporting.
    const silent = `Docker did not answer ${call.method} ${call.path} within ${call.timeoutMs} ms`;
    req.setTimeout(call.timeoutMs, () => req.destroy(new DockerError('unreachable', 0, silent)));
    req.on('response', resolve);
    req.on('error', (err) => reject(transportError(err)));
    req.end(payload);
  });
}

/** The JSON body of an answer with the `expected` status; any other status is its DockerError. */
export async function jsonOf(res: IncomingMessage, expected: number): Promise<unknown> {
  if (res.statusCode !== expected) throw await errorOf(res);
  const text = await readBody(res);
  try {
    return JSON.parse(text);
  } catch {
    throw new DockerError('error', expected, `Docker answered something other than JSON: ${text.slice(0, 200)}`);
  }
}

/** Docker's error bodies are `{"message": "..."}`; anything else is quoted as it came. */
export async function errorOf(res: IncomingMessage): Promise<DockerError> {
  const status = res.statusCode ?? 0;
  const text = await readBody(res).catch(() => '');
  let message = text.trim();
  try {
    const body: unknown = JSON.parse(text);
    if (isRecord(body) && typeof body['message'] === 'string') message = body['message'];
  } catch {
    // not JSON: keep the text
  }
  const kind: DockerErrorKind = status === 404 ? 'not_found' : status === 409 ? 'conflict' : 'error';
  return new DockerError(kind, status, message === '' ? `Docker answered ${status}` : message);
}

/**
 * Reads a pull's answer to the end: 200 at once, then one JSON object per line of progress, where a failure is
 * a line with `error` (and `errorDetail.message`). Returns that error, or null when the pull succeeded.
 */
export async function readPullStream(res: IncomingMessage): Promise<string | null> {
  let failure: string | null = null;
  let pending = '';
  const take = (line: string): void => {
    if (failure === null) failure = pullErrorOf(line);
  };
  res.setEncoding('utf8');
  try {
    for await (const chunk of res) {
      const lines = (pending + (chunk as string)).split('\n');
      pending = lines.pop() ?? '';
      lines.forEach(take);
    }
  } catch (err) {
    throw transportError(err as Error);
  }
  take(pending);
  return failure;
}

function pullErrorOf(line: string): string | null {
  let event: unknown;
  try {
    event = JSON.parse(line);
  } catch {
    return null; // a blank or unreadable progress line says nothing about success
  }
  if (!isRecord(event) || event['error'] === undefined) return null;
  const detail = isRecord(event['errorDetail']) ? event['errorDetail']['message'] : undefined;
  return String(typeof detail === 'string' ? detail : event['error']);
}

async function readBody(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of res) chunks.push(chunk as Buffer);
  } catch (err) {
    throw transportError(err as Error);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The connection failed, before or during the answer; a caller's abort stays an AbortError. */
function transportError(err: Error): Error {
  if (err instanceof DockerError || err.name === 'AbortError') return err;
  return new DockerError('unreachable', 0, `cannot reach Docker: ${err.message}`);
}
