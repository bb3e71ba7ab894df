import { parse } from 'cookie';
import type { Request, Response } from 'express';
import type { OpenedSession } from '../domain/accounts/sessions.js';
import { ApiError } from '../errors/api-error.js';

/**
 * The dashboard's session cookies (DESIGN.md 10; contract: SessionCookie): httpOnly so page scripts never read them,
 * Secure, SameSite=Strict so no other site's page sends them. The refresh token's cookie goes only to /v1/auth.
 */
export const SESSION_COOKIE = 'cgw_session';
export const REFRESH_COOKIE = 'cgw_refresh';
const REFRESH_PATH = '/v1/auth';
const BASE = { httpOnly: true, secure: true, sameSite: 'strict' } as const;

export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  return header === undefined ? undefined : parse(header)[name];
}

export function setSessionCookies(res: Response, session: OpenedSession): void {
  const { record } = session;
  res.cookie(SESSION_COOKIE, session.accessToken, {
    ...BASE,
    path: '/',
    expires: new Date(record.accessExpiresAtMs),
  });
  res.cookie(REFRESH_COOKIE, session.refreshToken, {
    ...BASE,
    path: REFRESH_PATH,
    expires: new Date(record.refreshExpiresAtMs),
  });
}

export function clearSessionCookies(res: Response): void {
  res.clearCookie(SESSION_COOKIE, { ...BASE, path: '/' });
  res.clearCookie(REFRESH_COOKIE, { ...BASE, path: REFRESH_PATH });
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A change made on the strength of a cookie must come from the service's own pages (contract: SessionCookie): the
 * browser's `Origin` must be PUBLIC_BASE_URL's origin, or, without one configured, the origin the request was sent
 * to. SameSite=Strict already keeps other sites' requests cookie-less; this holds where it does not (older
 * browsers, a sibling subdomain). 403 `origin_mismatch` otherwise.
 */
export function requireOwnOrigin(req: Request, publicBaseUrl: string | undefined): void {
  if (SAFE_METHODS.has(req.method)) return;
  const expected = publicBaseUrl === undefined ? `${req.protocol}://${req.get('host')}` : new URL(publicBaseUrl).origin;
  if (req.get('origin') !== expected) throw new ApiError('origin_mismatch');
}
