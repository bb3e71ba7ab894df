/**
 * A gateway with mail going to a real local SMTP server (smtp-server), for the account side's tests: sign up, read
 * the delivered mail, follow its link, sign in. Passwords are hashed at scrypt's cheapest allowed cost (2^14) so a
 * suite signs in many times quickly; the cost itself has its own tests.
 */
import { expect } from 'vitest';
import { linksIn } from '../../src/lib/links.js';
import { expectNativeOk } from './envelopes.js';
import { call, type Harness, startHarness } from './harness.js';
import { type ReceivedMail, startSmtpServer, type TestSmtpServer } from './smtp-server.js';

export const PASSWORD = 'a long enough passphrase';

export interface AccountsHarness extends Harness {
  smtp: TestSmtpServer;
  /** The next mail delivered to `to` among those not read yet by this helper. */
  mailTo(to: string): Promise<ReceivedMail>;
}

export async function startAccountsHarness(env: Record<string, string> = {}): Promise<AccountsHarness> {
  const smtp = await startSmtpServer();
  const harness = await startHarness({ SMTP_URL: smtp.url, PASSWORD_SCRYPT_LOG2N: '14', ...env });
  const read = new Set<ReceivedMail>();
  const closeHarness = harness.close.bind(harness);
  return Object.assign(harness, {
    smtp,
    async mailTo(to: string) {
      const wanted = to.toLowerCase();
      let found: ReceivedMail | undefined;
      for (let afterCount = 0; found === undefined; ) {
        const next = await smtp.nextMessage({ afterCount });
        if (!read.has(next) && next.envelopeTo.includes(wanted)) found = next;
        afterCount = smtp.received.indexOf(next) + 1;
      }
      read.add(found);
      return found;
    },
    async close() {
      await closeHarness();
      await smtp.close();
    },
  });
}

/** The `token` of the first link in a mail's text. */
export function tokenIn(mail: ReceivedMail): string {
  const link = linksIn(mail.text ?? '')[0];
  expect(link, mail.text).toBeDefined();
  return new URL(link!).searchParams.get('token')!;
}

let counter = 0;
export const freshEmail = (label = 'person') => `${label}-${++counter}-${Date.now()}@example.com`;

/** Signs up, follows the confirmation link, signs in: the session's tokens. */
export async function signedUpSession(h: AccountsHarness, email = freshEmail()) {
  expect((await call(h.baseUrl, 'POST', '/v1/auth/signup', { body: { email, password: PASSWORD } })).status).toBe(202);
  const token = tokenIn(await h.mailTo(email));
  expectNativeOk(await call(h.baseUrl, 'POST', '/v1/auth/confirm', { body: { token } }));
  const session = expectNativeOk(
    await call(h.baseUrl, 'POST', '/v1/auth/sessions', { body: { email, password: PASSWORD } }),
    201,
  ) as { access_token: string; refresh_token: string; session: { id: string } };
  return { email, ...session };
}
