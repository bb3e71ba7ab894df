import type { Logger } from 'pino';
import type { Mailer } from '../adapters/mailer/index.js';
import { LogMailer } from '../adapters/mailer/log.js';
import type { Config } from '../config.js';

/**
 * Mail for sign-up and password reset (issue 26): through SMTP_URL's server, or, in the embedded default without
 * one, written to the log so `make run` works with no mail server (README). SMTP_URL holds a password: it is
 * handed to the transport and never logged. The SMTP client (nodemailer) is loaded only when SMTP_URL is set.
 */
export async function buildMailer(config: Config, logger: Logger): Promise<Mailer> {
  if (config.SMTP_URL === undefined) return new LogMailer(logger, config.MAIL_FROM);
  const { SmtpMailer } = await import('../adapters/mailer/smtp.js');
  return new SmtpMailer({ url: config.SMTP_URL, from: config.MAIL_FROM });
}
