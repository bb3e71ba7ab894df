/**
 * A gateway with mail going to a real local SMTP server (smtp-server), for the account side's tests: sign up, read
 * the delivered mail, follow its link, sign in. Passwords are hashed at scrypt's cheapest allowed cost (2^14) so a
 * suite signs in many times quickly; the cost itself has its own tests.
 *
 * The account side limits attempts per client address (sign-up: 5 a minute), and a suite signs up far more often
 * than that: `h.request` sends each call from a client address of its own (X-Forwarded-For through a trusted
 * loopback proxy), so only the per-email windows a test means to reach are ever reached. The service's clock runs
 * with the real one plus whatever `h.advance` added: second-factor codes are single-use per 30-second step, and
 * links expire.
 */
import { Secret, TOTP } from 'otpauth';
import { expect } from 'vitest';
import { linksIn } from '../../src/lib/links.js';
import { expectNativeOk } from './envelopes.js';
import { call, type Harness, type JsonResponse, startHarness } from './harness.js';
import { type ReceivedMail, startSmtpServer, type TestSmtpServer } from './smtp-server.js';

export const PASSWORD = 'a long enough passphrase';

type CallOptions = NonNullable<Parameters<typeof call>[3]>;

export interface AccountsHarness extends Harness {
  smtp: TestSmtpServer;
  /** The next mail delivered to `to` among those not read yet by this helper. */
  mailTo(to: string): Promise<ReceivedMail>;
  /** `call` against this gateway from a client address used by no other call. */
  request(method: string, path: string, options?: CallOptions): Promise<JsonResponse>;
  /** Moves the service's clock forward. */
  advance(ms: number): void;
}

let clientCounter = 0;
/** 10.x.y.z, a new one each time. */
const nextClientAddress = () => {
  const n = ++clientCounter;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
};

export async function startAccountsHarness(env: Record<string, string> = {}): Promise<AccountsHarness> {
  const smtp = await startSmtpServer();
  let skewMs = 0;
  const harness = await startHarness(
    { SMTP_URL: smtp.url, PASSWORD_SCRYPT_LOG2N: '14', TRUSTED_PROXY: 'loopback', ...env },
    { now: () => Date.now() + skewMs },
  );
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
    request(method: string, path: string, options: CallOptions = {}) {
      const headers = { 'x-forwarded-for': nextClientAddress(), ...options.headers };
      return call(harness.baseUrl, method, path, { ...options, headers });
    },
    advance(ms: number) {
      skewMs += ms;
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

export interface SignedUpSession {
  email: string;
  access_token: string;
  refresh_token: string;
  session: { id: string };
}

/** Signs up and reads the confirmation mail: the link's token. */
export async function signedUpUnconfirmed(h: AccountsHarness, email = freshEmail()): Promise<string> {
  expectNativeOk(await h.request('POST', '/v1/auth/signup', { body: { email, password: PASSWORD } }), 202);
  return tokenIn(await h.mailTo(email));
}

/** POST /v1/auth/sessions with `email` and `password` (and `extra`, e.g. totp). */
export function signIn(h: AccountsHarness, email: string, password = PASSWORD, extra: Record<string, unknown> = {}) {
  return h.request('POST', '/v1/auth/sessions', { body: { email, password, ...extra } });
}

/** Signs up, follows the confirmation link, signs in: the session's tokens. */
export async function signedUpSession(h: AccountsHarness, email = freshEmail()): Promise<SignedUpSession> {
  const token = await signedUpUnconfirmed(h, email);
  expectNativeOk(await h.request('POST', '/v1/auth/confirm', { body: { token } }));
  return { email, ...expectNativeOk(await signIn(h, email), 201) };
}

/** Another session of the same account (a second sign-in; `extra` carries its `totp` when it has a second factor). */
export async function anotherSession(
  h: AccountsHarness,
  email: string,
  extra: Record<string, unknown> = {},
): Promise<SignedUpSession> {
  return { email, ...expectNativeOk(await signIn(h, email, PASSWORD, extra), 201) };
}

/**
 * The authenticator app's code for `secret`, one 30-second step after the last one asked for: the service's clock
 * moves a step first, so no two codes a test uses share a step (a step's code is accepted once).
 */
export function totpCode(h: AccountsHarness, secret: string): string {
  h.advance(30_000);
  const totp = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
  return totp.generate({ timestamp: h.deps.now() });
}

/** Turns the second factor on for a session's account: its secret and the ten recovery codes. */
export async function withTotp(h: AccountsHarness, accessToken: string) {
  const enrolment = expectNativeOk(await h.request('POST', '/v1/auth/totp', { key: accessToken }), 201);
  const body = { enrolment_token: enrolment.enrolment_token, code: totpCode(h, enrolment.secret) };
  const confirmed = expectNativeOk(await h.request('POST', '/v1/auth/totp/confirm', { key: accessToken, body }));
  return { secret: enrolment.secret as string, recoveryCodes: confirmed.recovery_codes as string[] };
}

/** A cookie as a Set-Cookie header set it: its value and its attributes, names lower-cased. */
export interface SetCookie {
  value: string;
  attributes: Record<string, string | true>;
}

/** The cookies a response set, by name. */
export function setCookies(response: JsonResponse): Record<string, SetCookie> {
  const cookies: Record<string, SetCookie> = {};
  for (const header of response.headers.getSetCookie()) {
    const [pair, ...attributes] = header.split(';').map((part) => part.trim());
    const [name, ...value] = pair!.split('=');
    cookies[name!] = {
      value: decodeURIComponent(value.join('=')),
      attributes: Object.fromEntries(
        attributes.map((a) => {
          const [key, ...rest] = a.split('=');
          return [key!.toLowerCase(), rest.length === 0 ? true : rest.join('=')];
        }),
      ),
    };
  }
  return cookies;
}

/** Signs in with `session_cookie: true`: the cookies as a browser would send them back, and the answer. */
export async function cookieSession(h: AccountsHarness, email: string) {
  const response = await signIn(h, email, PASSWORD, { session_cookie: true });
  const cookies = setCookies(response);
  return {
    response,
    session: `cgw_session=${cookies.cgw_session!.value}`,
    refresh: `cgw_refresh=${cookies.cgw_refresh!.value}`,
  };
}
