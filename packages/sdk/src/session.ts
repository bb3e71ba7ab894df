/**
 * Session sign-in for people rather than programs (DESIGN.md 10): the access token is short-lived, so the
 * gateway this returns refreshes it shortly before it expires, one refresh at a time (the service rotates the
 * refresh token and treats a reused one as stolen, revoking the whole family). `onTokens` sees every new pair
 * so a caller can keep it (the dashboard uses cookies instead: `credentials: 'include'`).
 */
import { ComputeGateway, type GatewayOptions } from './gateway.js';
import { refreshSession, signIn as signInOperation } from './generated/sdk.gen.js';
import type { SessionTokens } from './generated/types.gen.js';

export interface SessionOptions extends Omit<GatewayOptions, 'apiKey' | 'accessToken'> {
  /** Called with each token pair the service hands out (sign-in and every refresh). */
  onTokens?: (tokens: SessionTokens) => void;
}

/** Refresh this long before the access token's end, so a request in flight never carries a dead one. */
const refreshMarginMs = 30_000;

export function resumeSession(tokens: SessionTokens, options: SessionOptions = {}): ComputeGateway {
  let current = tokens;
  let expiresAt = Date.now() + tokens.expires_in * 1000;
  let pending: Promise<void> | undefined;
  const anonymous = new ComputeGateway({ ...options, retry: { maxRetries: 0 } });
  const refresh = async () => {
    const { data } = await refreshSession({
      client: anonymous.client,
      body: { refresh_token: current.refresh_token ?? '' },
      throwOnError: true,
    });
    current = data.data;
    expiresAt = Date.now() + current.expires_in * 1000;
    options.onTokens?.(current);
  };
  const accessToken = async () => {
    if (Date.now() >= expiresAt - refreshMarginMs) {
      pending ??= refresh().finally(() => (pending = undefined));
      await pending;
    }
    return current.access_token;
  };
  return new ComputeGateway({ ...options, accessToken });
}

export async function startSession(
  credentials: { email: string; password: string; totp?: string },
  options: SessionOptions = {},
): Promise<ComputeGateway> {
  const anonymous = new ComputeGateway(options);
  const { data } = await signInOperation({ client: anonymous.client, body: credentials, throwOnError: true });
  options.onTokens?.(data.data);
  return resumeSession(data.data, options);
}
