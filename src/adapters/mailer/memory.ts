import { randomUUID } from 'node:crypto';
import type { Mailer, MailerError, MailMessage } from './index.js';

/** A message the twin took, with the id it answered. */
export interface SentMail extends MailMessage {
  id: string;
}

/**
 * The in-memory twin of the mailer port, for tests: it records what was sent, and fails the next sends the way
 * the SMTP adapter does when told to (the conformance suite holds the two to the same error kinds).
 */
export class MemoryMailer implements Mailer {
  readonly sent: SentMail[] = [];
  readonly #failures: MailerError[] = [];
  #closed = false;

  /** The next sends throw these, one each, in order. */
  failNext(...failures: MailerError[]): void {
    this.#failures.push(...failures);
  }

  async send(message: MailMessage): Promise<string> {
    if (this.#closed) throw new Error('MemoryMailer: send after close');
    const failure = this.#failures.shift();
    if (failure !== undefined) throw failure;
    const id = `<${randomUUID()}@memory>`;
    this.sent.push({ ...message, id });
    return id;
  }

  async close(): Promise<void> {
    this.#closed = true;
  }
}
