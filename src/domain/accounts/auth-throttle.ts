/**
 * How often a person, or whoever pretends to be one, may try to sign in, sign up, get a confirmation mail, ask for a
 * password reset or redeem a mailed link (issue 26 item 5; DESIGN.md 10: "Sign-in is throttled per address and per
 * account; answers never reveal whether an email exists"). Each kind of attempt counts in sliding windows of the
 * rate-limiter port (`hit`), per client address and per email address, shared by every gateway process through
 * Redis; all its windows must have room, and an attempt is then recorded in all of them at once.
 *
 * Figures follow the OWASP Authentication Cheat Sheet ("Login Throttling", "Account Lockout": a threshold over an
 * observation window, counted per account and per source, without a permanent lock an attacker could impose) and
 * NIST SP 800-63B 5.2.2 (at most 100 failed attempts on one account). Every attempt counts, not only the failed
 * ones: the check runs before the password is hashed (scrypt holds 128 MiB of one core, passwords.ts), so a burst
 * never queues hashes, and a person who signs in ten times in 15 minutes is not a person.
 *
 * Never an oracle (OWASP: "generic responses"): windows are keyed by what the caller sent, never by what the store
 * holds, so a registered email and an unknown one are counted and refused alike, with one message whichever window
 * was full. Emails and addresses enter bucket names only as a hash, so Redis never holds them in clear.
 */
import { createHash } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import type { AttemptWindow, RateLimiter } from '../../adapters/rate-limiter/index.js';
import { ApiError, orUnavailable } from '../../errors/api-error.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

export interface AttemptLimit {
  limit: number;
  windowMs: number;
}

/** Each name is part of its bucket names, so one name always means one window length (the port's rule). */
export const AUTH_ATTEMPT_LIMITS = {
  /** A shared office address may hold a few people signing in; a guesser spraying accounts from one address may not. */
  signInPerAddress: { limit: 20, windowMs: 15 * MINUTE_MS },
  /** Guesses against one account from any number of addresses. */
  signInPerEmail: { limit: 10, windowMs: 15 * MINUTE_MS },
  /** NIST SP 800-63B 5.2.2: no more than 100 failed attempts on one account; 10 per 15 min alone would allow 960 a day. */
  signInPerEmailDaily: { limit: 100, windowMs: DAY_MS },
  /** The TOTP step of a sign-in: 3 codes are valid at a time of 10^6, so 5 guesses per 15 min needs years. */
  secondFactorPerAccount: { limit: 5, windowMs: 15 * MINUTE_MS },
  secondFactorPerAddress: { limit: 20, windowMs: 15 * MINUTE_MS },
  /** Accounts are cheap to ask for and each sends a mail. */
  signUpPerAddress: { limit: 5, windowMs: HOUR_MS },
  /** Sign-up mails the address given: a victim's inbox is not a target. */
  signUpPerEmail: { limit: 3, windowMs: HOUR_MS },
  /** A cooldown between confirmation mails, and a day's cap. */
  confirmationResendCooldown: { limit: 1, windowMs: MINUTE_MS },
  confirmationResendPerEmailDaily: { limit: 5, windowMs: DAY_MS },
  confirmationResendPerAddress: { limit: 10, windowMs: HOUR_MS },
  /** OWASP Forgot Password Cheat Sheet: reset requests are rate limited, per account and per source. */
  passwordResetPerEmail: { limit: 3, windowMs: HOUR_MS },
  passwordResetPerAddress: { limit: 10, windowMs: HOUR_MS },
  /** Confirming an email or setting a new password from a link: signed tokens cannot be guessed, but each costs work. */
  linkRedemptionPerAddress: { limit: 30, windowMs: 15 * MINUTE_MS },
} as const satisfies Record<string, AttemptLimit>;

type LimitName = keyof typeof AUTH_ATTEMPT_LIMITS;

/** One message for every window, so a refusal never says whether the email's window or the address's was full. */
const REFUSED = 'Too many attempts; retry after the Retry-After seconds';

/** `address`: where the request came from (as the authenticator gets it); `email` as typed: it is normalised here. */
export class AuthThrottle {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly now: () => number = Date.now,
  ) {}

  signIn(input: { address: string; email: string }): Promise<void> {
    const email = emailSubject(input.email);
    return this.#attempt([
      ['signInPerAddress', addressSubject(input.address)],
      ['signInPerEmail', email],
      ['signInPerEmailDaily', email],
    ]);
  }

  /** A TOTP or recovery code entered after the password; the account is known by then (the password was right). */
  secondFactor(input: { address: string; accountId: string }): Promise<void> {
    return this.#attempt([
      ['secondFactorPerAddress', addressSubject(input.address)],
      ['secondFactorPerAccount', subject('account', input.accountId)],
    ]);
  }

  signUp(input: { address: string; email: string }): Promise<void> {
    return this.#attempt([
      ['signUpPerAddress', addressSubject(input.address)],
      ['signUpPerEmail', emailSubject(input.email)],
    ]);
  }

  confirmationResend(input: { address: string; email: string }): Promise<void> {
    const email = emailSubject(input.email);
    return this.#attempt([
      ['confirmationResendPerAddress', addressSubject(input.address)],
      ['confirmationResendCooldown', email],
      ['confirmationResendPerEmailDaily', email],
    ]);
  }

  passwordResetRequest(input: { address: string; email: string }): Promise<void> {
    return this.#attempt([
      ['passwordResetPerAddress', addressSubject(input.address)],
      ['passwordResetPerEmail', emailSubject(input.email)],
    ]);
  }

  /** Following an email-confirmation link, or posting a new password with a reset link. */
  linkRedemption(input: { address: string }): Promise<void> {
    return this.#attempt([['linkRedemptionPerAddress', addressSubject(input.address)]]);
  }

  /**
   * 429 `auth_rate_limited` with Retry-After when a window is full. The shared store down is a 503 `not_ready`:
   * attempt windows fail closed (rate-limiter/fail-open.ts, docs/threat-model.md).
   */
  async #attempt(counted: [LimitName, string][]): Promise<void> {
    const windows: AttemptWindow[] = counted.map(([name, who]) => ({
      bucket: `auth:${name}:${who}`,
      ...AUTH_ATTEMPT_LIMITS[name],
    }));
    const decision = await orUnavailable(
      () => this.limiter.hit({ windows, nowMs: this.now() }),
      'store that counts sign-in attempts',
    );
    if (decision.allowed) return;
    throw new ApiError('auth_rate_limited', REFUSED, {
      headers: { 'Retry-After': String(Math.max(1, Math.ceil(decision.retryAfterMs / 1000))) },
    });
  }
}

/** Lower-cased and trimmed, as accounts and logins store it, so `Victim@Example.com ` is the same account. */
function emailSubject(email: string): string {
  return subject('email', email.trim().toLowerCase());
}

/**
 * One IPv6 /64 is one address (a host is usually given a whole /64, so it could otherwise take a fresh address
 * per attempt); an IPv4-mapped IPv6 address is its IPv4 address. Anything unparsable is counted as given.
 */
function addressSubject(address: string): string {
  const host = address.trim();
  if (!ipaddr.isValid(host)) return subject('address', host);
  let parsed = ipaddr.parse(host);
  if (parsed instanceof ipaddr.IPv6 && parsed.isIPv4MappedAddress()) parsed = parsed.toIPv4Address();
  if (parsed instanceof ipaddr.IPv6)
    return subject(
      'address',
      `${parsed.parts
        .slice(0, 4)
        .map((part) => part.toString(16))
        .join(':')}::/64`,
    );
  return subject('address', parsed.toString());
}

/**
 * SHA-256 of a labelled value, 132 bits in base64url. Not a secret: whoever reads Redis can still test whether a
 * given address was tried recently, for as long as its windows last; it only keeps a list of them out of the keys.
 */
function subject(kind: string, value: string): string {
  return createHash('sha256')
    .update(`compute-gateway auth attempt v1\n${kind}\n${value}`)
    .digest('base64url')
    .slice(0, 22);
}
