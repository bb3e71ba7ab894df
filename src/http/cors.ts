import type { RequestHandler } from 'express';

// SPEC 7.1.4: the request id and rate-limit headers must be readable by browser clients.
const EXPOSED =
  'X-Request-ID, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, x-should-retry, Idempotent-Replayed';
const ALLOWED_HEADERS = 'Authorization, X-API-Key, Content-Type, Accept, X-Request-ID, Idempotency-Key';
const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';
/** A preflight's list of header names: tokens (RFC 9110) separated by commas, within a sane length. */
const HEADER_NAME_LIST = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+(?:\s*,\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+)*$/;

/**
 * Any origin may call: keys travel in headers, never in cookies, so there is no ambient credential to protect.
 * For the same reason a preflight is granted every header it asks for: SDKs add their own (the official
 * `openai` sends `x-stainless-*`, `openai-organization`, `openai-project`), and a fixed list would break each
 * one it misses. `*` would not do: it never covers `Authorization`.
 */
export const cors: RequestHandler = (req, res, next) => {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Expose-Headers', EXPOSED);
  if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
    const asked = req.headers['access-control-request-headers']?.trim() ?? '';
    const grantable = asked.length <= 4096 && HEADER_NAME_LIST.test(asked);
    res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
    res.setHeader('Access-Control-Allow-Headers', grantable ? `${ALLOWED_HEADERS}, ${asked}` : ALLOWED_HEADERS);
    res.setHeader('Access-Control-Max-Age', '600');
    res.setHeader('Vary', 'Access-Control-Request-Headers');
    res.status(204).end();
    return;
  }
  next();
};
