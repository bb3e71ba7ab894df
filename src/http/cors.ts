import type { RequestHandler } from 'express';

// SPEC 7.1.4: the request id and rate-limit headers must be readable by browser clients.
const EXPOSED = 'X-Request-ID, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, x-should-retry, Idempotent-Replayed';
const ALLOWED_HEADERS = 'Authorization, X-API-Key, Content-Type, Accept, X-Request-ID, Idempotency-Key';
const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';

/** Any origin may call: keys travel in headers, never in cookies, so there is no ambient credential to protect. */
export const cors: RequestHandler = (req, res, next) => {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Expose-Headers', EXPOSED);
  if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
    res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
    res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
    res.setHeader('Access-Control-Max-Age', '600');
    res.status(204).end();
    return;
  }
  next();
};
