import { z } from 'zod';
import { isOneMailbox } from './lib/mail-address.js';

const DEFAULT_FROM = 'compute-gateway <no-reply@localhost>';

/** The settings of accounts, sign-in and their mail (issue 26, DESIGN.md 10), part of config.ts's schema. */
export const ACCOUNT_SETTINGS = {
  /** Where people reach the service: the links in mails, and the one `Origin` cookie-authenticated changes may come from. */
  PUBLIC_BASE_URL: z.string().url().optional(),
  /** Mail (sign-up and reset links) goes through this SMTP server, `smtp://user:pass@host:587` or `smtps://…`; unset: logged. */
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/[^/?#\s]+/, 'is smtp://user:pass@host:port or smtps://…')
    .optional(),
  MAIL_FROM: z.string().refine(isOneMailbox, 'is one address, e.g. Name <no-reply@example.com>').default(DEFAULT_FROM),
  /**
   * Signs the links mailed to people and the second-factor enrolments (32 characters at least); every process
   * behind one address needs the same one. Unset: a key kept in the database, made on first start.
   */
  ACCOUNT_LINK_SECRET: z.string().min(32).optional(),
  /** scrypt's cost for new password hashes, as log2 N (r=8, p=1): 17 (128 MiB, OWASP's floor) unless testing. */
  PASSWORD_SCRYPT_LOG2N: z.coerce.number().int().min(14).max(20).default(17),
} as const;
