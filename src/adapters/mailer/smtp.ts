/**
 * The mailer over SMTP with nodemailer: one pooled transport from SMTP_URL (`smtp://user:pass@host:587`, upgraded
 * with STARTTLS when the server offers it, or `smtps://…:465`), MAIL_FROM as the sender of every message.
 *
 * nodemailer encodes the text as quoted-printable when lines are long, so a long link is soft-wrapped and decodes
 * back whole. Failures are classified by nodemailer's error code and the server's reply: credentials refused is
 * `auth`, a reply refusing the sender, a recipient or the message is `rejected`, anything before a reply (refused
 * connection, DNS, TLS, a timeout) is `unreachable`. Messages carry the server's reply, never SMTP_URL.
 */
import nodemailer, { type NodemailerError } from 'nodemailer';
import { type Mailer, MailerError, type MailMessage } from './index.js';

/** How long to wait for a connection, for the server's greeting, and for any reply once talking (ms). */
export interface SmtpTimeouts {
  connectMs: number;
  greetingMs: number;
  socketMs: number;
}

/** A mail server that has not connected or greeted in 10 s is down; a reply can take longer (content scanning). */
const DEFAULT_TIMEOUTS: SmtpTimeouts = { connectMs: 10_000, greetingMs: 10_000, socketMs: 30_000 };

export interface SmtpMailerOptions {
  /** SMTP_URL; its user and password are the AUTH credentials. */
  url: string;
  /** MAIL_FROM, e.g. `compute-gateway <no-reply@example.com>`. */
  from: string;
  /** Tests shorten them. */
  timeouts?: SmtpTimeouts;
}

export class SmtpMailer implements Mailer {
  readonly #transport;
  readonly #inFlight = new Set<Promise<unknown>>();

  constructor(options: SmtpMailerOptions) {
    const timeouts = options.timeouts ?? DEFAULT_TIMEOUTS;
    this.#transport = nodemailer.createTransport(
      {
        pool: true,
        url: options.url,
        connectionTimeout: timeouts.connectMs,
        greetingTimeout: timeouts.greetingMs,
        socketTimeout: timeouts.socketMs,
        dnsTimeout: timeouts.connectMs,
        // A pooled connection the server dropped mid-send is tried once more on a fresh one; errors are not retried.
        maxRequeues: 1,
      },
      { from: options.from },
    );
  }

  async send(message: MailMessage): Promise<string> {
    const sending = this.#transport.sendMail({
      to: message.to,
      subject: message.subject,
      text: message.text,
      ...(message.html === undefined ? {} : { html: message.html }),
    });
    this.#inFlight.add(sending);
    try {
      const info = await sending;
      return info.messageId;
    } catch (err) {
      throw mailerErrorOf(err);
    } finally {
      this.#inFlight.delete(sending);
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.#inFlight]);
    this.#transport.close();
  }
}

const AUTH_CODES = new Set(['EAUTH', 'ENOAUTH']);

function mailerErrorOf(err: unknown): MailerError {
  const failure = err as Partial<NodemailerError>;
  const code = failure.code ?? 'unknown';
  const detail = failure.response ?? failure.message ?? String(err);
  if (AUTH_CODES.has(code)) return new MailerError(`SMTP server refused the credentials: ${detail}`, 'auth');
  if (code === 'EENVELOPE' || typeof failure.responseCode === 'number')
    return new MailerError(`SMTP server refused the message: ${detail}`, 'rejected');
  return new MailerError(`SMTP server unreachable (${code}): ${detail}`, 'unreachable');
}
