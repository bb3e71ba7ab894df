import type { components } from '../../../generated/openapi.js';
import type { SessionRecord } from '../../adapters/credential-store/index.js';
import { ACCESS_TOKEN_TTL_MS, REFRESH_TOKEN_TTL_MS } from '../../domain/accounts/session-tokens.js';
import type { OpenedSession } from '../../domain/accounts/sessions.js';

type AuthSession = components['schemas']['AuthSession'];
type SessionTokens = components['schemas']['SessionTokens'];

const iso = (ms: number): string => new Date(ms).toISOString();

export function authSessionView(session: SessionRecord, currentSessionId: string | null): AuthSession {
  return {
    id: session.id,
    created_at: iso(session.createdAtMs),
    last_used_at: iso(session.lastUsedAtMs),
    expires_at: iso(session.refreshExpiresAtMs),
    user_agent: session.userAgent,
    ip: session.ip,
    current: session.id === currentSessionId,
  };
}

/** The tokens in the body, unless they went into cookies (contract: SessionTokens). */
export function sessionTokensView(opened: OpenedSession, inCookies: boolean): SessionTokens {
  return {
    ...(inCookies ? {} : { access_token: opened.accessToken, refresh_token: opened.refreshToken }),
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_TTL_MS / 1000,
    refresh_expires_in: REFRESH_TOKEN_TTL_MS / 1000,
    session: authSessionView(opened.record, opened.record.id),
  };
}
