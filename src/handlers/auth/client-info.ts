import type { Request } from 'express';
import type { ClientInfo } from '../../domain/accounts/auth-context.js';
import type { Principal } from '../../domain/keys/authenticator.js';
import { ApiError } from '../../errors/api-error.js';

/** Where a request came from (the peer, or the client a trusted proxy names), for throttling and the sessions list. */
export function clientInfo(req: Request): ClientInfo {
  return { address: req.ip ?? '', userAgent: req.get('user-agent') ?? null };
}

/** For operations the contract gives to sessions only: the caller's account and session. */
export function requireSession(principal: Principal | null): { accountId: string; sessionId: string } {
  if (principal?.sessionId == null) throw new ApiError('session_required');
  return { accountId: principal.accountId, sessionId: principal.sessionId };
}

export const ACCEPTED = { status: 'accepted' } as const;
