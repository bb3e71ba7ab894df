import type { RequestHandler } from 'express';

// SPEC 5.5, 7.3: the default User-Agent of the Python `requests` library (`python-requests/<version>`) is
// blocked on every route with a plain-text 403: no envelope, no request id. Any other value passes.
const BLOCKED_USER_AGENT = /^python-requests\//i;

export const edgeBlock: RequestHandler = (req, res, next) => {
  const userAgent = req.headers['user-agent'];
  if (userAgent !== undefined && BLOCKED_USER_AGENT.test(userAgent)) {
    res.status(403).type('text/plain').send('Forbidden');
    return;
  }
  next();
};
