import { createHash, randomBytes } from 'node:crypto';
import { hashPassword, needsRehash, PASSWORD_SCRYPT_COST, type ScryptCost, verifyPassword } from './passwords.js';

/**
 * Passwords as sign-in uses them: hashed and checked under one cost, and checked against nothing at the same price
 * when the address is unknown, so a wrong address and a wrong password take the same time (issue 26 item 1: answers
 * never reveal whether an email is registered).
 */
export class PasswordHasher {
  private dummy: Promise<string> | undefined;

  constructor(private readonly cost: ScryptCost = PASSWORD_SCRYPT_COST) {}

  hash(password: string): Promise<string> {
    return hashPassword(password, this.cost);
  }

  verify(password: string, stored: string): Promise<boolean> {
    return verifyPassword(password, stored);
  }

  /** The work of a verification, for an address with no login; always false. */
  async verifyNothing(password: string): Promise<false> {
    this.dummy ??= hashPassword(randomBytes(16).toString('hex'), this.cost);
    await verifyPassword(password, await this.dummy);
    return false;
  }

  /** A hash made under a weaker cost than today's is replaced after a successful sign-in. */
  isOutdated(stored: string): boolean {
    return needsRehash(stored, this.cost);
  }
}

/**
 * What a password reset link is bound to (signed-links.ts subject): a digest of the stored hash and the address, so
 * the link dies once the password or the address changed, and the link itself reveals nothing of the hash.
 */
export function resetFingerprint(login: { passwordHash: string; email: string }): string {
  return createHash('sha256').update(`${login.passwordHash}\n${login.email}`).digest('base64url').slice(0, 22);
}
