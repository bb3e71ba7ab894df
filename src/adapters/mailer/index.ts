/**
 * The mailer port: one message to one address (issue 26: the sign-up confirmation and password-reset links).
 *
 * Adapters: `smtp.ts` (nodemailer over a pooled SMTP connection, SMTP_URL), `log.ts` (the message and its links
 * written to the log, the embedded default when SMTP_URL is unset) and `memory.ts` (the twin tests read). A send
 * the mail server did not take throws a `MailerError` whose kind says why, so callers decide without knowing SMTP.
 */

export interface MailMessage {
  /** One address, e.g. `person@example.com`. */
  to: string;
  subject: string;
  /** The plain-text body; links in it must arrive intact (long URLs included). */
  text: string;
  /** An HTML alternative of the same content. */
  html?: string;
}

export interface Mailer {
  /** Resolves with the message's id once the server accepted it; throws a MailerError when it did not. */
  send(message: MailMessage): Promise<string>;
  /** Lets sends under way finish, then gives back connections; no send after it. */
  close(): Promise<void>;
}

/**
 * Why a send failed: the server could not be reached in time (`unreachable`), it refused the sender, the
 * recipient or the message (`rejected`), or it refused our credentials (`auth`: an operator's fix).
 */
export type MailerFailure = 'unreachable' | 'rejected' | 'auth';

export class MailerError extends Error {
  constructor(
    message: string,
    readonly kind: MailerFailure,
  ) {
    super(message);
    this.name = 'MailerError';
  }
}
