import { URI } from 'otpauth';
import { describe, expect, it } from 'vitest';
import {
  createTotpSecret,
  TOTP_ISSUER,
  totpEnrolmentUri,
  totpStep,
  verifyTotpCode,
} from '../../src/domain/accounts/totp.js';

/** RFC 6238 Appendix B: the SHA-1 seed, ASCII "12345678901234567890", in base32. */
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

/**
 * RFC 6238 Appendix B, SHA-1 rows: time (s) → the 8-digit TOTP. A 6-digit code is the same number mod 10^6, i.e.
 * its last six digits, which is what these functions use.
 */
const RFC_VECTORS: ReadonlyArray<readonly [number, string]> = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

const check = (code: string, nowMs: number, lastAcceptedStep: number | null = null) =>
  verifyTotpCode({ secretBase32: RFC_SECRET, code, lastAcceptedStep, nowMs });

describe('verifyTotpCode against RFC 6238 Appendix B (SHA-1)', () => {
  it.each(RFC_VECTORS)('at T=%i s accepts the last six digits of %s, answering its step', (seconds, totp8) => {
    expect(check(totp8.slice(-6), seconds * 1000)).toEqual({ ok: true, step: Math.floor(seconds / 30) });
  });

  it('refuses the vectors at another time far from theirs', () => {
    for (const [, totp8] of RFC_VECTORS)
      expect(check(totp8.slice(-6), 600_000)).toEqual({ ok: false, reason: 'invalid' });
  });
});

describe('verifyTotpCode window and replay', () => {
  const code = '287082'; // step 1 (T=59 s)

  it('accepts the code one step late and one step early (±1 step), answering the code’s own step', () => {
    expect(check(code, 89_000)).toEqual({ ok: true, step: 1 }); // now in step 2
    expect(check(code, 29_000)).toEqual({ ok: true, step: 1 }); // now in step 0
  });

  it('refuses it two steps away', () => {
    expect(check(code, 119_000)).toEqual({ ok: false, reason: 'invalid' }); // step 3
  });

  it('refuses the same code again in its step, and once a later step was accepted', () => {
    expect(check(code, 59_000, 1)).toEqual({ ok: false, reason: 'reused' });
    expect(check(code, 89_000, 2)).toEqual({ ok: false, reason: 'reused' });
    expect(check(code, 59_000, 0)).toEqual({ ok: true, step: 1 });
  });

  it.each([
    ['spaces inside', '287 082', true],
    ['seven digits', '2870820', false],
    ['five digits', '28708', false],
    ['letters', 'abcdef', false],
    ['empty', '', false],
  ])('with %s: ok is %s', (_label, typed, ok) => {
    expect(check(typed, 59_000).ok).toBe(ok);
  });
});

describe('enrolment', () => {
  it('creates a 160-bit base32 secret, different each time', () => {
    const secret = createTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(createTotpSecret()).not.toBe(secret);
  });

  it('gives an otpauth URI with the issuer, the email as label, and the app-compatible parameters', () => {
    const uri = new URL(totpEnrolmentUri(RFC_SECRET, 'alice@example.com'));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe(`/${TOTP_ISSUER}:alice@example.com`);
    expect(Object.fromEntries(uri.searchParams)).toEqual({
      issuer: 'compute-gateway',
      secret: RFC_SECRET,
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
    });
  });

  it('round-trips: a code an app computes from the URI is accepted', () => {
    const secret = createTotpSecret();
    const nowMs = Date.UTC(2026, 10, 26, 9, 30, 15);
    const app = URI.parse(totpEnrolmentUri(secret, 'bob@example.com'));
    const typed = app.generate({ timestamp: nowMs });
    expect(verifyTotpCode({ secretBase32: secret, code: typed, lastAcceptedStep: null, nowMs })).toEqual({
      ok: true,
      step: totpStep(nowMs),
    });
  });
});
