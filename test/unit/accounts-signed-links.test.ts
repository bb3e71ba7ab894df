import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { LINK_TTL_MS, SignedLinks } from '../../src/domain/accounts/signed-links.js';

const SECRET = Buffer.alloc(32, 7);
const BASE_URL = 'https://gateway.example.com';
const NOW_MS = Date.UTC(2026, 10, 26, 9, 0, 0);
const links = new SignedLinks(SECRET, BASE_URL);

/** Rewrites a token's payload (its JSON claims) and keeps the old signature: what a tamperer can do. */
function withPayload(token: string, edit: (claims: Record<string, unknown>) => void): string {
  const [payload, signature] = token.split('.');
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8'));
  edit(claims);
  return `${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
}

describe('SignedLinks.issue', () => {
  it('links to /confirm?token= under PUBLIC_BASE_URL, for a day', () => {
    const link = links.issue('confirm_email', 'acc_1', 'a@example.com', NOW_MS);
    expect(link.url).toBe(`${BASE_URL}/confirm?token=${link.token}`);
    expect(link.expiresAtMs).toBe(NOW_MS + 24 * 60 * 60 * 1000);
    expect(link).toMatchObject({ purpose: 'confirm_email', accountId: 'acc_1' });
    expect(link.nonce).toMatch(/^[0-9A-Za-z]{22}$/);
  });

  it('links to /password-reset?token= for an hour, and ignores a trailing slash on the base URL', () => {
    const link = new SignedLinks(SECRET, `${BASE_URL}/`).issue('reset_password', 'acc_1', 'fp', NOW_MS);
    expect(link.url).toBe(`${BASE_URL}/password-reset?token=${link.token}`);
    expect(link.expiresAtMs).toBe(NOW_MS + LINK_TTL_MS.reset_password);
    expect(LINK_TTL_MS.reset_password).toBe(60 * 60 * 1000);
  });

  it('uses a token that needs no escaping in a URL and a fresh nonce each time', () => {
    const first = links.issue('confirm_email', 'acc_1', 'a@example.com', NOW_MS);
    const second = links.issue('confirm_email', 'acc_1', 'a@example.com', NOW_MS);
    expect(encodeURIComponent(first.token)).toBe(first.token);
    expect(first.nonce).not.toBe(second.nonce);
    expect(first.token).not.toBe(second.token);
  });

  it('refuses a secret shorter than 32 bytes', () => {
    expect(() => new SignedLinks(Buffer.alloc(31), BASE_URL)).toThrow(RangeError);
  });
});

describe('SignedLinks subjects and purposes', () => {
  it('carries the subject it was issued about, and accepts any of several purposes', () => {
    const change = links.issue('change_email', 'acc_1', 'new@example.com', NOW_MS);
    const check = links.verify(change.token, ['confirm_email', 'change_email'], NOW_MS);
    expect(check.ok && check.claims).toMatchObject({ purpose: 'change_email', subject: 'new@example.com' });
    expect(change.url).toMatch(/\/confirm\?token=/);
  });

  it('gives an enrolment token no link and a ten-minute life', () => {
    const enrol = links.issue('totp_enrol', 'acc_1', 'JBSWY3DPEHPK3PXP', NOW_MS);
    expect(enrol.url).toBeNull();
    expect(links.verify(enrol.token, 'totp_enrol', NOW_MS + 10 * 60_000)).toEqual({ ok: false, reason: 'expired' });
    expect(links.verify(enrol.token, 'confirm_email', NOW_MS)).toEqual({ ok: false, reason: 'wrong_purpose' });
  });
});

describe('SignedLinks.verify', () => {
  const link = links.issue('confirm_email', 'acc_1', 'a@example.com', NOW_MS);

  it('answers the claims of a link of ours, for its purpose, before it expires', () => {
    expect(links.verify(link.token, 'confirm_email', NOW_MS + 1)).toEqual({
      ok: true,
      claims: {
        purpose: 'confirm_email',
        accountId: 'acc_1',
        subject: 'a@example.com',
        expiresAtMs: link.expiresAtMs,
        nonce: link.nonce,
      },
    });
    expect(links.verify(link.token, 'confirm_email', link.expiresAtMs - 1).ok).toBe(true);
  });

  it('refuses it for another purpose', () => {
    expect(links.verify(link.token, 'reset_password', NOW_MS)).toEqual({ ok: false, reason: 'wrong_purpose' });
  });

  it('refuses it from its expiry on', () => {
    expect(links.verify(link.token, 'confirm_email', link.expiresAtMs)).toEqual({ ok: false, reason: 'expired' });
  });

  it('refuses it under another secret', () => {
    const other = new SignedLinks(Buffer.alloc(32, 8), BASE_URL);
    expect(other.verify(link.token, 'confirm_email', NOW_MS)).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it.each([
    ['another account', (c: Record<string, unknown>) => void (c.a = 'acc_2')],
    ['a later expiry', (c: Record<string, unknown>) => void (c.e = (c.e as number) + 1)],
    ['another purpose', (c: Record<string, unknown>) => void (c.p = 'reset_password')],
    ['another nonce', (c: Record<string, unknown>) => void (c.n = 'x')],
    ['another subject', (c: Record<string, unknown>) => void (c.s = 'b@example.com')],
  ])('refuses a payload rewritten to %s as bad_signature', (_label, edit) => {
    expect(links.verify(withPayload(link.token, edit), 'confirm_email', NOW_MS)).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it('refuses a signature with its first character changed', () => {
    const [payload, signature] = link.token.split('.') as [string, string];
    const changed = `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    expect(links.verify(`${payload}.${changed}`, 'confirm_email', NOW_MS)).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it('refuses a signature whose last character differs only in the bits base64url leaves spare', () => {
    const [payload, signature] = link.token.split('.') as [string, string];
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sibling = alphabet[alphabet.indexOf(signature.at(-1)!) ^ 1]!;
    const changed = `${signature.slice(0, -1)}${sibling}`;
    expect(Buffer.from(changed, 'base64url')).toEqual(Buffer.from(signature, 'base64url'));
    expect(links.verify(`${payload}.${changed}`, 'confirm_email', NOW_MS)).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it('refuses a correctly signed payload of the wrong shape as malformed', () => {
    const payload = Buffer.from(JSON.stringify({ p: 'confirm_email', a: 1, e: NOW_MS + 1000, n: 'x' })).toString(
      'base64url',
    );
    const signature = createHmac('sha256', SECRET)
      .update('compute-gateway account link v1\n')
      .update(payload)
      .digest('base64url');
    expect(links.verify(`${payload}.${signature}`, 'confirm_email', NOW_MS)).toEqual({
      ok: false,
      reason: 'malformed',
    });
  });

  it.each([
    ['empty', ''],
    ['no dot', link.token.replace('.', '')],
    ['two dots', `${link.token}.x`],
    ['percent-encoding left in', link.token.replace('.', '%2E')],
    ['a short signature', link.token.slice(0, -1)],
    ['far too long', `${'A'.repeat(600)}.${'A'.repeat(43)}`],
    ['not JSON under the dot', `${Buffer.from('not json').toString('base64url')}.${'A'.repeat(43)}`],
  ])('refuses %s with a reason, never a throw', (_label, token) => {
    const outcome = links.verify(token, 'confirm_email', NOW_MS);
    expect(outcome.ok).toBe(false);
    expect(['malformed', 'bad_signature']).toContain(outcome.ok ? null : outcome.reason);
  });
});
