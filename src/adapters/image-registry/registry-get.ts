/**
 * One GET to a registry or its token realm, through the address-guarded agent, with the check's deadline and a
 * size cap: the status, headers and body (read whole for 2xx up to the caller's cap, a bounded excerpt otherwise),
 * every body consumed or destroyed on every path so no socket stays pinned. Transport failures come out as the
 * port's errors, except the caller's own abort, which comes out as the caller's abort reason.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { type Dispatcher, request } from 'undici';
import type { AddressPolicy } from '../../lib/address-policy.js';
import { excerpt } from '../../lib/outbound-http.js';
import { readUpTo } from '../../lib/read-up-to.js';
import { assertPermittedHost, isBlocked } from '../../lib/ssrf-guard.js';
import { ImageRegistryError } from './index.js';

/** Error bodies are read only this far: enough for the registry's error JSON, bounded against a hostile one. */
const ERROR_BODY_MAX_BYTES = 64 * 1024;

/** The life of one size check: every GET in it shares the agent, the policy and the deadline. */
export interface CheckCall {
  dispatcher: Dispatcher;
  policy: AddressPolicy;
  /** Aborts on the caller's signal or at the deadline, whichever comes first. */
  signal: AbortSignal;
  /** The caller's own signal, to tell "the caller left" from "the registry was too slow". */
  callerSignal: AbortSignal | undefined;
  timeoutMs: number;
}

export interface RegistryAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body; for a 2xx, null when it was larger than the cap (the rest was not read). */
  body: Buffer | null;
}

export async function registryGet(
  call: CheckCall,
  url: URL,
  headers: Record<string, string>,
  maxBytes: number,
): Promise<RegistryAnswer> {
  try {
    assertPermittedHost(url, call.policy);
    const response = await request(url, { dispatcher: call.dispatcher, method: 'GET', headers, signal: call.signal });
    const ok = response.statusCode >= 200 && response.statusCode < 300;
    const { bytes, cut } = await bodyUpTo(response, ok ? maxBytes : ERROR_BODY_MAX_BYTES);
    return {
      status: response.statusCode,
      headers: response.headers as IncomingHttpHeaders,
      body: ok && cut ? null : bytes,
    };
  } catch (error) {
    throw failureOf(error, call, url);
  }
}

/** The body up to `limit` bytes, and whether more was there (refused from Content-Length before reading, if it says so). */
async function bodyUpTo(response: Dispatcher.ResponseData, limit: number): Promise<{ bytes: Buffer; cut: boolean }> {
  const declared = Number(response.headers['content-length'] ?? Number.NaN);
  if (declared > limit) {
    // undici reports a body destroyed unread as an 'error' (RequestAbortedError); here that is the intent.
    response.body.on('error', () => {});
    response.body.destroy();
    return { bytes: Buffer.alloc(0), cut: true };
  }
  const { bytes, cut } = await readUpTo(response.body, limit);
  return { bytes: cut ? bytes.subarray(0, limit) : bytes, cut };
}

/** What a thrown transport error stands for. The caller's abort outranks everything: it is not a verdict on the image. */
function failureOf(error: unknown, call: CheckCall, url: URL): unknown {
  if (call.callerSignal?.aborted) return call.callerSignal.reason;
  if (error instanceof ImageRegistryError) return error;
  if (isBlocked(error))
    return new ImageRegistryError('blocked_address', `${url.host} is an address the service does not connect to`);
  if (call.signal.aborted)
    return new ImageRegistryError('unreachable', `${url.host} did not answer within ${call.timeoutMs} ms`);
  const code = (error as { code?: unknown } | null)?.code;
  const detail = `${error instanceof Error ? error.message : String(error)}${typeof code === 'string' ? ` (${code})` : ''}`;
  return new ImageRegistryError('unreachable', `${url.host} could not be reached: ${excerpt(detail)}`);
}
