/**
 * A real SMTP server on 127.0.0.1 for tests (the `smtp-server` package): AUTH PLAIN or LOGIN with one test user,
 * no TLS (STARTTLS off, so AUTH is allowed in the clear on loopback), every accepted message kept with its
 * envelope and parsed. Tests read what was delivered, wait for the next message (a sign-up mail sent in the
 * background), or make the server misbehave: refuse a recipient (550), refuse every login (535).
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { type ParsedMail, parseMail } from './mime-message.js';
import { eventually } from './polling.js';

export interface ReceivedMail extends ParsedMail {
  /** The envelope: MAIL FROM and RCPT TO as the client sent them. */
  envelopeFrom: string;
  envelopeTo: string[];
  /** The DATA as received, CRLF line ends. */
  raw: string;
  /** Decoded headers read out for convenience. */
  from: string;
  to: string;
  subject: string;
}

export interface TestSmtpServer {
  /** `smtp://user:password@127.0.0.1:<port>`, the SMTP_URL to give the gateway. */
  url: string;
  port: number;
  user: string;
  password: string;
  /** Every message accepted so far, in order. */
  received: ReceivedMail[];
  /** The first message accepted after `afterCount` messages (default: the ones already received). */
  nextMessage(options?: { afterCount?: number; withinMs?: number }): Promise<ReceivedMail>;
  /** RCPT TO this address answers 550 from now on. */
  refuseRecipient(address: string): void;
  /** Every AUTH answers 535 from now on, as after a password change. */
  refuseLogins(): void;
  /** Stops listening and ends open sessions; safe to call twice. */
  close(): Promise<void>;
}

export interface TestSmtpServerOptions {
  /** Default both PLAIN and LOGIN. */
  authMethods?: ('PLAIN' | 'LOGIN')[];
}

const USER = 'gateway-test';
const PASSWORD = 'correct horse battery staple';

export async function startSmtpServer(options: TestSmtpServerOptions = {}): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  const refusedRecipients = new Set<string>();
  let loginsRefused = false;
  const server = new SMTPServer({
    ...quietInsecureServer(options),
    onAuth(auth, _session, callback) {
      if (!loginsRefused && auth.username === USER && auth.password === PASSWORD)
        return callback(null, { user: auth.username });
      callback(smtpError('Authentication credentials invalid', 535));
    },
    onRcptTo(address, _session, callback) {
      if (refusedRecipients.has(address.address.toLowerCase()))
        return callback(smtpError(`<${address.address}>: mailbox unavailable`, 550));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push(receivedMail(Buffer.concat(chunks).toString('utf8'), session.envelope));
        callback();
      });
    },
  });
  // A client that drops its socket (a pool closing, a test's timeout) is an 'error' event: not the test's failure.
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `smtp://${USER}:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}`,
    port,
    user: USER,
    password: PASSWORD,
    received,
    nextMessage: ({ afterCount = received.length, withinMs = 15_000 } = {}) =>
      eventually(async () => received[afterCount], withinMs, 'an SMTP message'),
    refuseRecipient: (address) => void refusedRecipients.add(address.toLowerCase()),
    refuseLogins: () => void (loginsRefused = true),
    close: () => (closing ??= new Promise<void>((resolve) => server.close(() => resolve()))),
  };
}

function quietInsecureServer(options: TestSmtpServerOptions): SMTPServerOptions {
  return {
    secure: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: options.authMethods ?? ['PLAIN', 'LOGIN'],
    logger: false,
    // Sessions the client pool keeps open are ended at once by close().
    closeTimeout: 100,
  };
}

function smtpError(message: string, responseCode: number): Error {
  return Object.assign(new Error(message), { responseCode });
}

function receivedMail(
  raw: string,
  envelope: { mailFrom: false | { address: string }; rcptTo: { address: string }[] },
): ReceivedMail {
  const parsed = parseMail(raw);
  return {
    ...parsed,
    envelopeFrom: envelope.mailFrom === false ? '' : envelope.mailFrom.address,
    envelopeTo: envelope.rcptTo.map((r) => r.address),
    raw,
    from: parsed.headers.get('from') ?? '',
    to: parsed.headers.get('to') ?? '',
    subject: parsed.headers.get('subject') ?? '',
  };
}
