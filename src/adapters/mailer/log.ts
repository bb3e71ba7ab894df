import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { linksIn } from '../../lib/links.js';
import type { Mailer, MailMessage } from './index.js';

/**
 * The mailer when no SMTP_URL is configured (the embedded default): each message is written to the log at info,
 * its links listed apart, so a person on `make run` finds the confirmation link there (README). It knows no
 * server and so no credentials; the HTML alternative is left out (the text carries the same links).
 */
export class LogMailer implements Mailer {
  constructor(
    private readonly logger: Pick<Logger, 'info'>,
    private readonly from: string,
  ) {}

  async send(message: MailMessage): Promise<string> {
    const id = `<${randomUUID()}@log>`;
    this.logger.info(
      {
        mail_id: id,
        from: this.from,
        to: message.to,
        subject: message.subject,
        links: linksIn(message.text),
        text: message.text,
      },
      'mail (no SMTP_URL: logged, not sent)',
    );
    return id;
  }

  async close(): Promise<void> {}
}
