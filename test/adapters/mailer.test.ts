import { createServer, type Server } from 'node:net';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MailerError } from '../../src/adapters/mailer/index.js';
import { LogMailer } from '../../src/adapters/mailer/log.js';
import { MemoryMailer } from '../../src/adapters/mailer/memory.js';
import { SmtpMailer, type SmtpTimeouts } from '../../src/adapters/mailer/smtp.js';
import { buildMailer } from '../../src/composition/mail.js';
import { loadConfig } from '../../src/config.js';
import { startSmtpServer, type TestSmtpServer } from '../setup/smtp-server.js';
import { LONG_LINK, mailerConformance } from './mailer.conformance.js';

/** Short enough that a dead server fails a test quickly, long enough for a busy 2-core machine. */
const TEST_TIMEOUTS: SmtpTimeouts = { connectMs: 2_000, greetingMs: 2_000, socketMs: 5_000 };
const FROM = 'compute-gateway <no-reply@gateway.example.com>';

mailerConformance('memory', async () => {
  const mailer = new MemoryMailer();
  return {
    mailer,
    delivered: async () => mailer.sent.map(({ id: _id, ...message }) => message),
    misbehave: {
      refuseRecipient: () => mailer.failNext(new MailerError('550 mailbox unavailable', 'rejected')),
      down: async () => mailer.failNext(new MailerError('connection refused', 'unreachable')),
      refuseLogins: () => mailer.failNext(new MailerError('535 authentication failed', 'auth')),
    },
    cleanup: async () => {},
  };
});

mailerConformance('SMTP', async () => {
  const server = await startSmtpServer();
  return {
    mailer: new SmtpMailer({ url: server.url, from: FROM, timeouts: TEST_TIMEOUTS }),
    delivered: async () =>
      server.received.map((mail) => ({
        to: mail.envelopeTo.join(', '),
        subject: mail.subject,
        text: mail.text ?? '',
        ...(mail.html === undefined ? {} : { html: mail.html }),
      })),
    misbehave: {
      refuseRecipient: (address) => server.refuseRecipient(address),
      down: () => server.close(),
      refuseLogins: () => server.refuseLogins(),
    },
    cleanup: () => server.close(),
  };
});

describe('SmtpMailer: the message on the wire', () => {
  let server: TestSmtpServer;
  const mailers: SmtpMailer[] = [];
  const mailer = (url = server.url, timeouts = TEST_TIMEOUTS) => {
    const made = new SmtpMailer({ url, from: FROM, timeouts });
    mailers.push(made);
    return made;
  };
  beforeEach(async () => {
    server = await startSmtpServer();
  });
  afterEach(async () => {
    for (const m of mailers.splice(0)) await m.close();
    await server.close();
  });

  it('sends from MAIL_FROM to the recipient, headers and envelope alike, and answers the Message-ID', async () => {
    const id = await mailer().send({ to: 'person@example.com', subject: 'Confirm', text: `Go: ${LONG_LINK}` });
    const mail = await server.nextMessage({ afterCount: 0 });
    expect(mail).toMatchObject({
      envelopeFrom: 'no-reply@gateway.example.com',
      envelopeTo: ['person@example.com'],
      from: '"compute-gateway" <no-reply@gateway.example.com>', // the display name quoted on the wire
      to: 'person@example.com',
      subject: 'Confirm',
      text: `Go: ${LONG_LINK}`,
    });
    expect(mail.headers.get('message-id')).toBe(id);
  });

  it('wraps no line past 78 characters, yet the long link decodes whole (quoted-printable soft breaks)', async () => {
    await mailer().send({ to: 'person@example.com', subject: 'Confirm', text: `Go: ${LONG_LINK}` });
    const mail = await server.nextMessage({ afterCount: 0 });
    expect(mail.raw).not.toContain(LONG_LINK);
    expect(Math.max(...mail.raw.split('\r\n').map((line) => line.length))).toBeLessThanOrEqual(78);
    expect(mail.text).toContain(LONG_LINK);
  });

  it('logs in with AUTH LOGIN when that is all the server offers', async () => {
    await server.close();
    server = await startSmtpServer({ authMethods: ['LOGIN'] });
    await mailer().send({ to: 'login@example.com', subject: 'via LOGIN', text: 'ok' });
    expect((await server.nextMessage({ afterCount: 0 })).subject).toBe('via LOGIN');
  });

  it('a wrong password is auth, and no error message carries the credentials', async () => {
    const wrong = server.url.replace(encodeURIComponent(server.password), 'wrong-password');
    const err = (await mailer(wrong)
      .send({ to: 'a@example.com', subject: 's', text: 't' })
      .catch((e: unknown) => e)) as MailerError;
    expect(err).toBeInstanceOf(MailerError);
    expect(err.kind).toBe('auth');
    expect(err.message).not.toContain('wrong-password');
    expect(err.message).not.toContain(server.user);
  });

  it('a server that accepts the connection but never greets is unreachable once the greeting timeout passes', async () => {
    const silent: Server = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const err = (await mailer(`smtp://u:p@127.0.0.1:${port}`, { connectMs: 500, greetingMs: 500, socketMs: 500 })
        .send({ to: 'a@example.com', subject: 's', text: 't' })
        .catch((e: unknown) => e)) as MailerError;
      expect(err).toBeInstanceOf(MailerError);
      expect(err.kind).toBe('unreachable');
    } finally {
      silent.close();
      for (const m of mailers.splice(0)) await m.close();
    }
  });

  it('close lets a send under way finish, and the pool is closed after it', async () => {
    const m = mailer();
    const sending = m.send({ to: 'late@example.com', subject: 'last one', text: 'bye' });
    await m.close();
    await expect(sending).resolves.toEqual(expect.any(String));
    expect(server.received.map((r) => r.subject)).toEqual(['last one']);
  });
});

describe('buildMailer: the mailer chosen by configuration', () => {
  it('the log without SMTP_URL; with it, SMTP from MAIL_FROM to the server it names', async () => {
    const logger = pino({ level: 'silent' });
    expect(await buildMailer(loadConfig({}), logger)).toBeInstanceOf(LogMailer);
    const server = await startSmtpServer();
    const mailer = await buildMailer(
      loadConfig({ SMTP_URL: server.url, MAIL_FROM: 'Gateway <gw@example.com>' }),
      logger,
    );
    try {
      await mailer.send({ to: 'person@example.com', subject: 'configured', text: 'hi' });
      expect(await server.nextMessage({ afterCount: 0 })).toMatchObject({ from: 'Gateway <gw@example.com>' });
    } finally {
      await mailer.close();
      await server.close();
    }
  });
});
