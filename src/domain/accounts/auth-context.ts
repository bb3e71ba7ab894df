import type { ApiKeyStore } from '../../adapters/api-keys/index.js';
import type { CredentialStore, LoginRecord } from '../../adapters/credential-store/index.js';
import { ApiError } from '../../errors/api-error.js';
import type { AuthFailures } from '../keys/auth-failures.js';
import type { AuthMail } from './auth-mail.js';
import type { AuthThrottle } from './auth-throttle.js';
import type { PasswordHasher } from './password-hasher.js';
import type { LinkCheck, SignedLinks } from './signed-links.js';

/** What the account side's flows use (DESIGN.md 10); built once by the composition root. */
export interface AuthContext {
  apiKeys: ApiKeyStore;
  credentials: CredentialStore;
  links: SignedLinks;
  mail: AuthMail;
  throttle: AuthThrottle;
  /** Unknown credentials per client address, the API keys' count: refresh tokens no one was given count there too. */
  unknownTokens: AuthFailures;
  passwords: PasswordHasher;
  now: () => number;
}

/** Where a request came from, as sessions record it. */
export interface ClientInfo {
  address: string;
  userAgent: string | null;
}

const LINK_FAILURES: Readonly<Record<Exclude<LinkCheck, { ok: true }>['reason'], string>> = {
  malformed: 'This link is incomplete: copy the whole link from the mail',
  bad_signature: 'This link is not one of ours',
  wrong_purpose: 'This link is meant for another page',
  expired: 'This link has expired: ask for a new one',
};

/** The claims of a valid token, or 400 `invalid_link` saying what is wrong with it. */
export function claimsOrInvalid(check: LinkCheck): Extract<LinkCheck, { ok: true }>['claims'] {
  if (!check.ok) throw new ApiError('invalid_link', LINK_FAILURES[check.reason]);
  return check.claims;
}

export const linkNoLongerValid = (why: string): ApiError => new ApiError('invalid_link', why);

/** The login behind a signed-in session; a session outliving its login (deleted account) is no session. */
export async function loginOf(ctx: AuthContext, accountId: string): Promise<LoginRecord> {
  const login = await ctx.credentials.findLoginByAccount(accountId);
  if (login === null) throw new ApiError('invalid_session');
  return login;
}

/** Checks a password that confirms a change; 401 `invalid_credentials` when wrong. */
export async function requirePassword(ctx: AuthContext, login: LoginRecord, password: string): Promise<void> {
  if (!(await ctx.passwords.verify(password, login.passwordHash))) throw new ApiError('invalid_credentials');
}
