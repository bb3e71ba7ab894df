import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccountsHarness, freshEmail, PASSWORD, startAccountsHarness, tokenIn } from '../setup/accounts.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call } from '../setup/harness.js';

let h: AccountsHarness;
beforeAll(async () => {
  h = await startAccountsHarness();
});
afterAll(() => h.close());

/**
 * Issue 26: a person gets in with no operator. Sign up, read the mail the SMTP server received, follow its link,
 * sign in, make a key with the session, and that key makes a paid call once the account has money.
 */
describe('from sign-up to a paid call', () => {
  it('signs up, confirms through the delivered mail, signs in, makes a key, and the key pays for a chat', async () => {
    const email = freshEmail('e2e');
    const signUp = await call(h.baseUrl, 'POST', '/v1/auth/signup', { body: { email, password: PASSWORD } });
    expect(expectNativeOk(signUp, 202)).toEqual({ status: 'accepted' });

    const mail = await h.mailTo(email);
    expect(mail.subject).toBe('Confirm your email address');
    expect(mail.text).toMatch(/\/confirm\?token=/);

    const early = await call(h.baseUrl, 'POST', '/v1/auth/sessions', { body: { email, password: PASSWORD } });
    expectNativeError(early, 403, 'email_unconfirmed');

    const confirmed = await call(h.baseUrl, 'POST', '/v1/auth/confirm', { body: { token: tokenIn(mail) } });
    expect(expectNativeOk(confirmed)).toEqual({ email, email_confirmed: true });

    const signIn = await call(h.baseUrl, 'POST', '/v1/auth/sessions', { body: { email, password: PASSWORD } });
    const session = expectNativeOk(signIn, 201);
    expect(session.access_token).toMatch(/^cgw_at_/);
    expect(session.token_type).toBe('Bearer');

    const created = await call(h.baseUrl, 'POST', '/v1/llm/api-keys', {
      key: session.access_token,
      body: { name: 'from the dashboard' },
    });
    const { api_key: apiKey, key } = expectNativeOk(created, 201);
    expect(key.name).toBe('from the dashboard');

    const account = expectNativeOk(await call(h.baseUrl, 'GET', '/v1/account', { key: apiKey }));
    expect(account.sign_in).toEqual({ email_confirmed: true, totp_enabled: false });
    const chat = { model: 'gpt-5-mini', messages: [{ role: 'user', content: 'Say hello' }] };
    const broke = await call(h.baseUrl, 'POST', '/v1/compat/chat/completions', { key: apiKey, body: chat });
    expect(broke.status, broke.text).toBe(402);

    await h.topUp(account.account_id, 1);
    const paid = await call(h.baseUrl, 'POST', '/v1/compat/chat/completions', { key: apiKey, body: chat });
    expect(paid.status, paid.text).toBe(200);
    const usage = expectNativeOk(await call(h.baseUrl, 'GET', '/v1/llm/usage/requests', { key: session.access_token }));
    expect(usage.requests).toHaveLength(1);
  });

  it('refuses the session token on the model API, and an API key on session-only operations', async () => {
    const email = freshEmail('kinds');
    await call(h.baseUrl, 'POST', '/v1/auth/signup', { body: { email, password: PASSWORD } });
    await call(h.baseUrl, 'POST', '/v1/auth/confirm', { body: { token: tokenIn(await h.mailTo(email)) } });
    const { access_token } = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/auth/sessions', { body: { email, password: PASSWORD } }),
      201,
    );
    const chat = { model: 'gpt-5-mini', messages: [{ role: 'user', content: 'hi' }] };
    const refused = await call(h.baseUrl, 'POST', '/v1/llm/chat/completions', { key: access_token, body: chat });
    expectNativeError(refused, 403, 'session_not_accepted');
    const { apiKey } = await h.newAccount();
    expectNativeError(await call(h.baseUrl, 'GET', '/v1/auth/sessions', { key: apiKey }), 403, 'session_required');
  });

  it('an address whose account the operator deleted signs up again from scratch', async () => {
    const email = freshEmail('again');
    await call(h.baseUrl, 'POST', '/v1/auth/signup', { body: { email, password: PASSWORD } });
    await call(h.baseUrl, 'POST', '/v1/auth/confirm', { body: { token: tokenIn(await h.mailTo(email)) } });
    const old = (await h.deps.apiKeys.findAccountByEmail(email))!;
    await h.deps.apiKeys.deleteAccount(old.id); // what `accounts delete` does
    await call(h.baseUrl, 'POST', '/v1/auth/signup', { body: { email, password: 'a brand new passphrase' } });
    const mail = await h.mailTo(email);
    expect(mail.subject).toBe('Confirm your email address');
    await call(h.baseUrl, 'POST', '/v1/auth/confirm', { body: { token: tokenIn(mail) } });
    const signIn = await call(h.baseUrl, 'POST', '/v1/auth/sessions', {
      body: { email, password: 'a brand new passphrase' },
    });
    expect(expectNativeOk(signIn, 201).session.id).toMatch(/^ses_/);
    expect((await h.deps.apiKeys.findAccountByEmail(email))!.id).not.toBe(old.id);
  });
});
