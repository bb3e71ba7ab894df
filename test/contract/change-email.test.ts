import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AccountsHarness,
  cookieSession,
  freshEmail,
  PASSWORD,
  signedUpSession,
  signedUpUnconfirmed,
  signIn,
  startAccountsHarness,
  tokenIn,
} from '../setup/accounts.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';

let h: AccountsHarness;
beforeAll(async () => {
  h = await startAccountsHarness();
});
afterAll(() => h.close());

const changeEmail = (accessToken: string, email: string, password = PASSWORD) =>
  h.request('POST', '/v1/account/email', { key: accessToken, body: { email, password } });
const confirm = (token: string) => h.request('POST', '/v1/auth/confirm', { body: { token } });

/** Waits for a mail caused after everything so far: any earlier mail has been delivered by then. */
const settleMail = async () => signedUpUnconfirmed(h, freshEmail('marker'));
const mailsTo = (email: string) => h.smtp.received.filter((m) => m.envelopeTo.includes(email));

describe('POST /v1/account/email', () => {
  it('202: a link to the new address; following it moves the account, and the old address is told', async () => {
    const { email, access_token } = await signedUpSession(h);
    const newEmail = freshEmail('new');
    expect(expectNativeOk(await changeEmail(access_token, newEmail.toUpperCase()), 202)).toEqual({
      status: 'accepted',
    });
    const mail = await h.mailTo(newEmail);
    expect(mail.subject).toBe('Confirm your new email address');
    // Nothing changes until the link is followed.
    expectNativeOk(await signIn(h, email), 201);
    expect(expectNativeOk(await confirm(tokenIn(mail)))).toEqual({ email: newEmail, email_confirmed: true });
    const notice = await h.mailTo(email);
    expect(notice.subject).toBe('Your email address was changed');
    expect(notice.text).toContain(newEmail);
    expectNativeOk(await signIn(h, newEmail), 201);
    expectNativeError(await signIn(h, email), 401, 'invalid_credentials');
    const account = expectNativeOk(await h.request('GET', '/v1/account', { key: access_token }));
    expect(account.email).toBe(newEmail);
    // The link works once.
    expectNativeError(await confirm(tokenIn(mail)), 400, 'invalid_link');
  });

  it('202 and no link when another account holds the address: its holder is told, nothing changes', async () => {
    const { email, access_token } = await signedUpSession(h);
    const holder = await signedUpSession(h);
    const answer = expectNativeOk(await changeEmail(access_token, holder.email), 202);
    expect(answer).toEqual({ status: 'accepted' });
    const notice = await h.mailTo(holder.email);
    expect(notice.subject).toBe('Someone tried to use your address');
    await settleMail();
    expect(mailsTo(holder.email).filter((m) => /token=/.test(m.text ?? ''))).toHaveLength(1); // its sign-up link only
    expectNativeOk(await signIn(h, email), 201);
    expectNativeOk(await signIn(h, holder.email), 201);
  });

  it('400 invalid_link: a link to an address another account took in the meantime', async () => {
    const { email, access_token } = await signedUpSession(h);
    const contested = freshEmail('contested');
    expectNativeOk(await changeEmail(access_token, contested), 202);
    const link = tokenIn(await h.mailTo(contested));
    await signedUpSession(h, contested);
    expectNativeError(await confirm(link), 400, 'invalid_link');
    expectNativeOk(await signIn(h, email), 201);
  });

  it('401 invalid_credentials: a wrong password; no mail is sent', async () => {
    const { access_token } = await signedUpSession(h);
    const newEmail = freshEmail('never');
    expectNativeError(
      await changeEmail(access_token, newEmail, 'not the passphrase at all'),
      401,
      'invalid_credentials',
    );
    await settleMail();
    expect(mailsTo(newEmail)).toHaveLength(0);
  });

  it('403 origin_mismatch: by cookie without the service’s Origin', async () => {
    const { email } = await signedUpSession(h);
    const { session } = await cookieSession(h, email);
    const body = { email: freshEmail('cookie'), password: PASSWORD };
    const refused = await h.request('POST', '/v1/account/email', { body, headers: { cookie: session } });
    expectNativeError(refused, 403, 'origin_mismatch');
    const allowed = await h.request('POST', '/v1/account/email', {
      body,
      headers: { cookie: session, origin: h.baseUrl },
    });
    expectNativeOk(allowed, 202);
  });

  it('400 invalid_request: not an address, no password', async () => {
    const { access_token } = await signedUpSession(h);
    expectNativeError(await changeEmail(access_token, 'nowhere'), 400, 'invalid_email');
    const body = { email: freshEmail() };
    expectNativeError(
      await h.request('POST', '/v1/account/email', { key: access_token, body }),
      400,
      'invalid_request',
    );
  });

  it('401 authentication_required without credentials; 403 session_required with an API key', async () => {
    const body = { email: freshEmail(), password: PASSWORD };
    expectNativeError(await h.request('POST', '/v1/account/email', { body }), 401, 'authentication_required');
    const { apiKey } = await h.newAccount();
    expectNativeError(await changeEmail(apiKey, body.email), 403, 'session_required');
  });
});
