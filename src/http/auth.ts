import type { Request, RequestHandler } from 'express';
import { looksLikeSessionToken } from '../domain/accounts/session-tokens.js';
import type { Authenticator, Principal } from '../domain/keys/authenticator.js';
import { ApiError } from '../errors/api-error.js';
import { readCookie, requireOwnOrigin, SESSION_COOKIE } from './session-cookies.js';

/**
 * What an operation's `security` accepts: `mode` from its alternatives (`[]` none, a `{}` alternative optional,
 * otherwise required), `keys` when it lists BearerAuth or ApiKeyHeader, `sessions` when it lists SessionBearer or
 * SessionCookie (contract: securitySchemes).
 */
export interface AuthRule {
  mode: 'none' | 'optional' | 'required';
  keys: boolean;
  sessions: boolean;
}

export interface Credentials {
  keys: Authenticator;
  /** `address`: the client's (req.ip), against which unknown tokens count. */
  sessions: (accessToken: string, address: string | undefined) => Promise<Principal>;
  publicBaseUrl: string | undefined;
}

const BEARER = /^Bearer\s+(.+)$/i;

/** SPEC 5.1: `Authorization: Bearer <key>` or `X-API-Key: <key>`, on every surface; the same header carries a session. */
export function presentedKey(req: Request): string | undefined {
  const authorization = req.headers.authorization;
  if (authorization !== undefined) return BEARER.exec(authorization.trim())?.[1]?.trim() ?? authorization;
  const apiKey = req.headers['x-api-key'];
  return Array.isArray(apiKey) ? apiKey[0] : apiKey;
}

/**
 * A header names the credential when there is one (an API key, or a session's access token, told apart by shape);
 * otherwise the session cookie, where the operation takes sessions. A credential of the kind the operation does not
 * take is refused by kind (403), before any lookup.
 */
export function authenticate(rule: AuthRule, credentials: Credentials): RequestHandler {
  return async (req, res, next) => {
    res.locals.principal = null;
    if (rule.mode === 'none') return next();
    const presented = presentedKey(req);
    const cookie = rule.sessions ? readCookie(req, SESSION_COOKIE) : undefined;
    if (presented !== undefined && presented !== '') {
      res.locals.principal = await fromHeader(rule, credentials, presented, req.ip);
    } else if (cookie !== undefined && cookie !== '') {
      requireOwnOrigin(req, credentials.publicBaseUrl);
      res.locals.principal = await credentials.sessions(cookie, req.ip);
    } else if (rule.mode === 'required') {
      throw new ApiError('authentication_required');
    }
    next();
  };
}

function fromHeader(rule: AuthRule, credentials: Credentials, presented: string, ip: string | undefined) {
  if (looksLikeSessionToken('access', presented)) {
    if (!rule.sessions) throw new ApiError('session_not_accepted');
    return credentials.sessions(presented, ip);
  }
  if (!rule.keys) throw new ApiError('session_required');
  return credentials.keys.authenticate(presented, ip);
}
