import type { SessionRecord } from '../../adapters/credential-store/index.js';
import { ApiError } from '../../errors/api-error.js';
import { newId } from '../../lib/ids.js';
import type { Principal } from '../keys/authenticator.js';
import type { AuthContext, ClientInfo } from './auth-context.js';
import { decideRefresh } from './refresh-rotation.js';
import { issueSessionToken, looksLikeSessionToken, sessionTokenHash } from './session-tokens.js';

/** A session as handed to its holder: the tokens, shown this once, and what is kept of it. */
export interface OpenedSession {
  accessToken: string;
  refreshToken: string;
  record: SessionRecord;
}

const MAX_USER_AGENT = 256;
/** A session's last use is written at most this often: a dashboard's every call need not be a write. */
const TOUCH_EVERY_MS = 60_000;

function newTokens(nowMs: number) {
  const access = issueSessionToken('access', nowMs);
  const refresh = issueSessionToken('refresh', nowMs);
  return {
    access,
    refresh,
    fields: {
      id: newId('ses'),
      accessHash: access.hash,
      refreshHash: refresh.hash,
      accessExpiresAtMs: access.expiresAtMs,
      refreshExpiresAtMs: refresh.expiresAtMs,
      createdAtMs: nowMs,
    },
  };
}

const clientFields = (client: ClientInfo) => ({
  userAgent: client.userAgent?.slice(0, MAX_USER_AGENT) ?? null,
  ip: client.address === '' ? null : client.address,
});

/** Starts a sign-in's family of sessions (refresh-rotation.ts). */
export async function openSession(ctx: AuthContext, accountId: string, client: ClientInfo): Promise<OpenedSession> {
  const { access, refresh, fields } = newTokens(ctx.now());
  const record = await ctx.credentials.createSession({
    ...fields,
    accountId,
    familyId: newId('fam'),
    ...clientFields(client),
  });
  return { accessToken: access.token, refreshToken: refresh.token, record };
}

/**
 * Tokens no one was given count against the client address as unknown API keys do (AuthFailures): tokens cannot be
 * guessed, but a flood of them would each be a lookup; past the limit the address gets 429 `auth_rate_limited`
 * before any. Answers what to call for a token found to be unknown.
 */
function unknownTokenGuard(ctx: AuthContext, address: string): () => never {
  ctx.unknownTokens.refuseWhileOver(address, 'Too many unknown tokens from this address; retry after Retry-After s');
  return () => {
    ctx.unknownTokens.record(address);
    throw new ApiError('invalid_session');
  };
}

/** The account a session acts for: 404 once deleted, 403 `account_locked` while an operator has locked it. */
async function activeAccount(ctx: AuthContext, accountId: string) {
  const account = await ctx.apiKeys.getAccount(accountId);
  if (account === null) throw new ApiError('user_not_found');
  if (account.lockedAtMs !== null)
    throw new ApiError('account_locked', 'This account is locked by the operator; contact support to have it unlocked');
  return account;
}

/**
 * Exchanges a refresh token for its successor. A token presented twice revokes its whole family, the caller's copy
 * and the thief's alike (issue 26 hostile case: "a stolen refresh token used twice revokes the family"); so does the
 * loser of two concurrent presentations. Every failure is the same 401 `invalid_session`; tokens no one was given
 * count against the address (unknownTokenGuard), tokens once valid (expired, revoked, reused) do not. A session of a
 * locked account is refused (403 `account_locked`) and keeps its tokens, which work again once it is unlocked.
 */
export async function refreshSession(
  ctx: AuthContext,
  refreshToken: string,
  client: ClientInfo,
): Promise<OpenedSession> {
  const unknown = unknownTokenGuard(ctx, client.address);
  if (!looksLikeSessionToken('refresh', refreshToken)) return unknown();
  const hash = sessionTokenHash(refreshToken);
  const nowMs = ctx.now();
  const found = await ctx.credentials.findSessionByRefreshHash(hash);
  if (found === null) return unknown();
  const decision = decideRefresh(
    {
      familyId: found.familyId,
      expiresAtMs: found.refreshExpiresAtMs,
      rotatedAtMs: found.rotatedAtMs,
      familyRevokedAtMs: found.revokedAtMs,
    },
    nowMs,
  );
  if (decision.action === 'revoke_family') await ctx.credentials.revokeFamily(decision.familyId, nowMs);
  if (decision.action !== 'rotate') throw new ApiError('invalid_session');
  await activeAccount(ctx, found.accountId);
  const { access, refresh, fields } = newTokens(nowMs);
  const rotated = await ctx.credentials.rotateSession(hash, { ...fields, ...clientFields(client) }, nowMs);
  if (!rotated.ok) {
    if (rotated.reason === 'already_rotated') await ctx.credentials.revokeFamily(decision.familyId, nowMs);
    throw new ApiError('invalid_session');
  }
  return { accessToken: access.token, refreshToken: refresh.token, record: rotated.session };
}

/**
 * The spec's `<ACCESS_TOKEN>` turned into the account it acts for (DESIGN.md 10: "a session may do what the
 * account's first key may do"). Not cached: a revoked session stops at once, in every process. Its rate-limit
 * window is its sign-in's (the family), which refreshes do not reset. A token not found (expired ones included: they
 * are not told apart) counts against the client address as an unknown refresh token does (unknownTokenGuard).
 */
export async function authenticateSession(ctx: AuthContext, accessToken: string, address: string): Promise<Principal> {
  const unknown = unknownTokenGuard(ctx, address);
  if (!looksLikeSessionToken('access', accessToken)) return unknown();
  const nowMs = ctx.now();
  const session = await ctx.credentials.findSessionByAccessHash(sessionTokenHash(accessToken), nowMs);
  if (session === null) return unknown();
  const account = await activeAccount(ctx, session.accountId);
  if (nowMs - session.lastUsedAtMs >= TOUCH_EVERY_MS) await ctx.credentials.touchSession(session.id, nowMs);
  return {
    accountId: account.id,
    keyId: session.familyId,
    account,
    keyRateLimitPerMinute: null,
    managesKeys: true,
    keySpendLimit: null,
    sessionId: session.id,
  };
}

export async function listSessions(ctx: AuthContext, accountId: string): Promise<SessionRecord[]> {
  return ctx.credentials.listLiveSessions(accountId, ctx.now());
}

/** Ends one live session of the account; anything else is 404 `session_not_found`, so ids of others cannot be probed. */
export async function endSession(ctx: AuthContext, accountId: string, sessionId: string): Promise<SessionRecord> {
  const nowMs = ctx.now();
  const live = await ctx.credentials.listLiveSessions(accountId, nowMs);
  const session = live.find((s) => s.id === sessionId);
  if (session === undefined || !(await ctx.credentials.revokeSession(sessionId, nowMs)))
    throw new ApiError('session_not_found');
  return { ...session, revokedAtMs: nowMs };
}

/** Sign out everywhere: every session of the account ends; API keys are untouched. */
export function endAllSessions(ctx: AuthContext, accountId: string): Promise<number> {
  return ctx.credentials.revokeAccountSessions(accountId, ctx.now());
}
