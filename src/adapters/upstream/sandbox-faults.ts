/**
 * Failures the sandbox can be told to play, as an HTTP upstream fails. A request cannot make the sandbox fail the
 * way a vendor does (a 5xx, a 429, a connection that breaks mid-stream), yet it is the twin the contract tests run
 * on: with these, the provider conformance suite (test/adapters/upstream.conformance.ts) holds it to the same
 * failure kinds as the HTTP providers (SPEC 7.2 classification depends on them), so the twin cannot drift.
 */
import { UpstreamError } from './index.js';

export type SandboxFault =
  /** The upstream answers with this HTTP error status, and this `Retry-After` when given. */
  | { status: number; retryAfterSec?: number }
  /** The connection breaks off after this many stream events (a JSON answer breaks off before it is whole). */
  | { dieAfterChunks: number };

/** Faults queued for the coming calls, one per call, in order. */
export class SandboxFaults {
  readonly #queue: SandboxFault[] = [];

  add(faults: SandboxFault[]): void {
    this.#queue.push(...faults);
  }

  /**
   * The next call's fault: an HTTP error is thrown at once, as the answer to the request; a break is returned as
   * the number of events the call may still send (null: no fault, the call answers normally).
   */
  take(): number | null {
    const fault = this.#queue.shift();
    if (fault === undefined) return null;
    if ('dieAfterChunks' in fault) return fault.dieAfterChunks;
    throw new UpstreamError({
      kind: 'http',
      status: fault.status,
      message: `sandbox: HTTP ${fault.status}, a fault it was told to play`,
      ...(fault.retryAfterSec === undefined ? {} : { retryAfterSec: fault.retryAfterSec }),
    });
  }
}

/** What a broken connection is after 2xx headers: the wire format was not kept (as http-client.ts reports it). */
export function brokeOff(): UpstreamError {
  return new UpstreamError({
    kind: 'bad_response',
    message: 'the upstream response broke off: the sandbox was told to break the connection',
  });
}
