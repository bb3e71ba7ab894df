import {
  endAllSessions,
  endSession,
  listSessions as liveSessions,
  refreshSession as refresh,
} from '../../domain/accounts/sessions.js';
import { signIn as signInWith } from '../../domain/accounts/sign-in.js';
import { ApiError } from '../../errors/api-error.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import {
  clearSessionCookies,
  REFRESH_COOKIE,
  readCookie,
  requireOwnOrigin,
  setSessionCookies,
} from '../../http/session-cookies.js';
import { authSessionView, sessionTokensView } from '../views/auth-session-view.js';
import { clientInfo, requireSession } from './client-info.js';

/** Issue 26 item 3: the new session's tokens, in the body or (the dashboard) in cookies. */
export const signIn: Handler<'signIn'> = async ({ deps, body, req, res }) => {
  const opened = await signInWith(deps.auth, body!, clientInfo(req));
  const inCookies = body!.session_cookie === true;
  if (inCookies) setSessionCookies(res, opened);
  return { status: 201, body: nativeOk(sessionTokensView(opened, inCookies), 'Вход выполнен') };
};

/**
 * The refresh token from the body, or from its cookie, which then must come from the service's own pages. Tokens that
 * came in cookies go back in cookies whatever the body asks: a page script could otherwise trade the httpOnly
 * cookie for tokens it can read (contract: SessionTokens).
 */
export const refreshSession: Handler<'refreshSession'> = async ({ deps, body, req, res }) => {
  const fromCookie = body?.refresh_token === undefined;
  const token = body?.refresh_token ?? readCookie(req, REFRESH_COOKIE);
  if (token === undefined) throw new ApiError('authentication_required', 'Send refresh_token, or the refresh cookie');
  if (fromCookie) requireOwnOrigin(req, deps.config.PUBLIC_BASE_URL);
  const opened = await refresh(deps.auth, token, clientInfo(req));
  const inCookies = fromCookie || body?.session_cookie === true;
  if (inCookies) setSessionCookies(res, opened);
  return { status: 200, body: nativeOk(sessionTokensView(opened, inCookies)) };
};

export const listSessions: Handler<'listSessions'> = async ({ deps, principal }) => {
  const { accountId, sessionId } = requireSession(principal);
  const sessions = await liveSessions(deps.auth, accountId);
  return { status: 200, body: nativeOk({ sessions: sessions.map((s) => authSessionView(s, sessionId)) }) };
};

/** `current` signs the caller out; another id ends that session only. */
export const revokeSession: Handler<'revokeSession'> = async ({ deps, principal, params, res }) => {
  const { accountId, sessionId } = requireSession(principal);
  const target = params.session_id === 'current' ? sessionId : params.session_id;
  const ended = await endSession(deps.auth, accountId, target);
  if (target === sessionId) clearSessionCookies(res);
  return { status: 200, body: nativeOk({ session: authSessionView(ended, sessionId) }, 'Сеанс завершён') };
};

export const revokeAllSessions: Handler<'revokeAllSessions'> = async ({ deps, principal, res }) => {
  const { accountId } = requireSession(principal);
  const revoked = await endAllSessions(deps.auth, accountId);
  clearSessionCookies(res);
  return { status: 200, body: nativeOk({ revoked }, 'Все сеансы завершены') };
};
