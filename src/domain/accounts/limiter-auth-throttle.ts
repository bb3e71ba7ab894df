import { createHash } from 'node:crypto';
import type { RateLimiter } from '../../adapters/rate-limiter/index.js';
import { ApiError } from '../../errors/api-error.js';
import type { AuthThrottle } from './auth-throttle-port.js';

/** Attempts per minute, per client address and per email address (OWASP Authentication Cheat Sheet). */
const PER_MINUTE = {
  signIn: { address: 20, email: 10 },
  signUp: { address: 5 },
  mailRequest: { address: 10, email: 3 },
  linkAttempt: { address: 30 },
} as const;

/** Emails are hashed into window names, so none is kept in clear in the limiter's store. */
const emailBucket = (email: string) => createHash('sha256').update(email).digest('base64url').slice(0, 22);

/** The AuthThrottle on the rate limiter's two sliding windows. */
export class LimiterAuthThrottle implements AuthThrottle {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly now: () => number,
  ) {}

  signIn(address: string, email: string): Promise<void> {
    return this.count('sign-in', address, PER_MINUTE.signIn.address, emailBucket(email), PER_MINUTE.signIn.email);
  }

  signUp(address: string): Promise<void> {
    return this.count('sign-up', address, PER_MINUTE.signUp.address, address, PER_MINUTE.signUp.address);
  }

  mailRequest(address: string, email: string): Promise<void> {
    const { mailRequest } = PER_MINUTE;
    return this.count('mail', address, mailRequest.address, emailBucket(email), mailRequest.email);
  }

  linkAttempt(address: string): Promise<void> {
    return this.count('link', address, PER_MINUTE.linkAttempt.address, address, PER_MINUTE.linkAttempt.address);
  }

  private async count(kind: string, address: string, perAddress: number, subject: string, perSubject: number) {
    const decision = await this.limiter.check({
      keyId: `auth:${kind}:addr:${address}`,
      accountId: `auth:${kind}:subject:${subject}`,
      keyLimit: perAddress,
      accountLimit: perSubject,
      nowMs: this.now(),
    });
    if (!decision.allowed)
      throw new ApiError('auth_rate_limited', 'Too many attempts: try again later', {
        headers: { 'Retry-After': String(Math.max(1, Math.ceil(decision.retryAfterMs / 1000))) },
      });
  }
}
