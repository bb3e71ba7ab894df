import type { Response } from 'express';
import { ApiError } from '../errors/api-error.js';
import { ERROR_CATALOG } from '../errors/catalog.js';

/**
 * SPEC 4.2 keep-alive path: the 200 status and a byte of whitespace go out at once and every `intervalMs`
 * after, so no proxy or client times out while a long answer is produced; then the JSON. An upstream failure
 * after that arrives as a 200 whose body has `error` (KeepAliveError): clients read to the end and check it.
 * Resolves with what was sent, as a success (`ok`) or the KeepAliveError.
 */
export async function serveKeepAlive(
  res: Response,
  requestId: string,
  intervalMs: number,
  produce: () => Promise<unknown>,
  onUnexpected: (err: unknown) => void,
): Promise<{ ok: boolean; body: unknown }> {
  res.status(200);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.write(' ');
  const timer = setInterval(() => {
    if (!res.writableEnded) res.write(' ');
  }, intervalMs);
  let body: unknown;
  let ok = true;
  try {
    body = await produce();
  } catch (err) {
    ok = false;
    if (!(err instanceof ApiError)) onUnexpected(err);
    const error = err instanceof ApiError ? err : new ApiError('internal_error');
    body = {
      error: { message: error.message, type: ERROR_CATALOG[error.code].type, code: error.code },
      request_id: requestId,
    };
  } finally {
    clearInterval(timer);
  }
  if (!res.writableEnded) res.end(JSON.stringify(body));
  return { ok, body };
}
