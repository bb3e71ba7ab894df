/**
 * The agent's one error for the Docker Engine: what dockerode rejects with (docker-modem's `(HTTP code 404) no such
 * container - <Docker's message>` errors, or the socket's own) turned into a kind the agent can act on, with
 * Docker's message as it wrote it.
 */
import { isRecord } from '../lib/is-record.js';

export type DockerErrorKind =
  /** 404: no such container, volume or image (also Docker's answer to pulling a repository that does not exist). */
  | 'not_found'
  /** 409: a container name in use, removing a running container without force, or a volume in use. */
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

/** docker-modem's prefix before Docker's own message: `(HTTP code 409) unexpected - `. */
const MODEM_PREFIX = /^\(HTTP code \d+\) .*? - /;

/** A dockerode rejection as a DockerError; a caller's abort stays an AbortError. */
export function dockerErrorOf(err: unknown): Error {
  if (err instanceof DockerError) return err;
  if (!(err instanceof Error)) return new DockerError('error', 0, String(err));
  if (err.name === 'AbortError') return err;
  const status = (err as { statusCode?: unknown }).statusCode;
  if (typeof status !== 'number') return new DockerError('unreachable', 0, `cannot reach Docker: ${err.message}`);
  const message = err.message.replace(MODEM_PREFIX, '').trim();
  const kind: DockerErrorKind = status === 404 ? 'not_found' : status === 409 ? 'conflict' : 'error';
  return new DockerError(kind, status, message === '' ? `Docker answered ${status}` : message);
}

/** Docker answers 304 to starting a running container or stopping a stopped one: done already, not a failure. */
export function doneAlready(err: unknown): void {
  if ((err as { statusCode?: unknown } | null)?.statusCode !== 304) throw err;
}

/** The first error line of a pull's progress events (`error`, with `errorDetail.message`), or null. */
export function pullFailureOf(events: readonly unknown[]): string | null {
  for (const event of events) {
    if (!isRecord(event) || event['error'] === undefined) continue;
    const detail = isRecord(event['errorDetail']) ? event['errorDetail']['message'] : undefined;
    return String(typeof detail === 'string' ? detail : event['error']);
  }
  return null;
}
