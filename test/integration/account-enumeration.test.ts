import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PasswordHasher } from '../../src/domain/accounts/password-hasher.js';
import {
  type AccountsHarness,
  freshEmail,
  PASSWORD,
  signedUpSession,
  startAccountsHarness,
} from '../setup/accounts.js';
import { expectNativeError } from '../setup/envelopes.js';
import { call, type JsonResponse } from '../setup/harness.js';
import { sleep } from '../setup/time.js';

let h: AccountsHarness;
beforeAll(async () => {
  // Each probe comes from an address of its own (X-Forwarded-For from a trusted loopback proxy), so the sign-in
  // throttle, which has its own tests, never answers in place of the behaviour under test.
  h = await startAccountsHarness({ TRUSTED_PROXY: 'loopback' });
});
afterAll(() => h.close());

/** What a caller sees of an answer, less what differs on every request. */
const seen = (response: JsonResponse) => ({
  status: response.status,
  body: JSON.stringify(response.body).replace(/req_[0-9A-Za-z]+/g, 'req'),
  retry: response.headers.get('x-should-retry'),
});

let probes = 0;
const post = (path: string, body: unknown) =>
  call(h.baseUrl, 'POST', path, { body, headers: { 'x-forwarded-for': `198.51.100.${++probes}` } });

/** Mails delivered to `to` after `count` deliveries, once mail sent in the background had time to arrive. */
async function mailsAfter(count: number, to: string) {
  await sleep(300);
  return h.smtp.received.slice(count).filter((mail) => mail.envelopeTo.includes(to.toLowerCase()));
}

/** Issue 26 hostile case "enumeration": no answer tells whether an address is registered. */
describe('nobody learns who is registered', () => {
  it('sign-up answers a registered address exactly as a new one; only the owner hears of it, with a reset link', async () => {
    const { email } = await signedUpSession(h);
    const before = h.smtp.received.length;
    const again = await post('/v1/auth/signup', { email, password: 'another long passphrase' });
    const fresh = await post('/v1/auth/signup', { email: freshEmail(), password: 'another long passphrase' });
    expect(seen(again)).toEqual(seen(fresh));
    const notice = await h.mailTo(email);
    expect(notice.subject).toBe('You already have an account');
    expect(notice.text).toMatch(/\/password-reset\?token=/);
    expect(h.smtp.received.length).toBeGreaterThan(before);
  });

  it('sign-in answers an unknown address exactly as a wrong password', async () => {
    const { email } = await signedUpSession(h);
    const wrong = await post('/v1/auth/sessions', { email, password: 'not the password at all' });
    const unknown = await post('/v1/auth/sessions', { email: freshEmail('nobody'), password: PASSWORD });
    expectNativeError(wrong, 401, 'invalid_credentials');
    expect(seen(unknown)).toEqual(seen(wrong));
  });

  it.each([
    ['/v1/auth/password-reset', 'a reset link'],
    ['/v1/auth/confirm/resend', 'a confirmation link'],
  ])('%s answers an unknown address as a registered one, and mails nobody (%s)', async (path) => {
    const { email } = await signedUpSession(h);
    const nobody = freshEmail('nobody');
    const count = h.smtp.received.length;
    const known = await post(path, { email });
    const unknown = await post(path, { email: nobody });
    expect(seen(unknown)).toEqual(seen(known));
    expect(unknown.status).toBe(202);
    expect(await mailsAfter(count, nobody)).toEqual([]);
  });

  it('an unknown address costs the same password work as a known one', async () => {
    const hasher = new PasswordHasher({ N: 2 ** 14, r: 8, p: 1 });
    const stored = await hasher.hash(PASSWORD);
    const timed = async (run: () => Promise<unknown>) => {
      const started = performance.now();
      for (let i = 0; i < 5; i++) await run();
      return performance.now() - started;
    };
    await hasher.verifyNothing(PASSWORD); // the first call also makes the stand-in hash
    const known = await timed(() => hasher.verify('wrong password here', stored));
    const unknown = await timed(() => hasher.verifyNothing('wrong password here'));
    // The same scrypt at the same cost: not a hash lookup that returns at once (a fraction of a millisecond).
    expect(unknown).toBeGreaterThan(known / 4);
    expect(await hasher.verifyNothing(PASSWORD)).toBe(false);
  });
});
