import type { Request, RequestHandler } from 'express';
import type { Authenticator } from '../domain/keys/authenticator.js';
import { ApiError } from '../errors/api-error.js';

/** From the operation's `security`: `[]` none, a `{}` alternative optional, otherwise required. */
export type AuthMode = 'none' | 'optional' | 'required';

const BEARER = /^Bearer\s+(.+)$/i;

/** SPEC 5.1: `Authorization: Bearer <key>` or `X-API-Key: <key>`, on every surface. */
export function presentedKey(req: Request): string | undefined {
  const authorization = req.headers.authorization;
  if (authorization !== undefined) return BEARER.exec(authorization.trim())?.[1]?.trim() ?? authorization;
  const apiKey = req.headers['x-api-key'];
  return Array.isArray(apiKey) ? apiKey[0] : apiKey;
}

export function authenticate(mode: AuthMode, authenticator: Authenticator): RequestHandler {
  return async (req, res, next) => {
    res.locals.principal = null;
    if (mode === 'none') return next();
    const key = presentedKey(req);
    if (key === undefined || key === '') {
      if (mode === 'optional') return next();
      throw new ApiError('authentication_required');
    }
    res.locals.principal = await authenticator.authenticate(key, req.ip);
    next();
  };
}
