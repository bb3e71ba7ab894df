import { Secret, TOTP } from 'otpauth';

/**
 * The second factor (issue 26 item 4, DESIGN.md 10): RFC 6238 TOTP with the parameters every authenticator app
 * reads from an otpauth URI: HMAC-SHA-1, 6 digits, 30-second steps (apps such as Google Authenticator ignore other
 * algorithms). The secret is kept readable by the store (the server must compute codes), unlike passwords and tokens.
 */
export const TOTP_ISSUER = 'compute-gateway';
const ALGORITHM = 'SHA1';
const DIGITS = 6;
const PERIOD_SEC = 30;
/** ±1 step: a code typed in the last seconds of its step, or on a phone whose clock is a little off, still counts. */
const WINDOW_STEPS = 1;
/** RFC 4226 4 (R6) recommends a 160-bit shared secret. */
const SECRET_BYTES = 20;

/** A new shared secret, base32 (the form the otpauth URI and manual entry in apps use). */
export function createTotpSecret(): string {
  return new Secret({ size: SECRET_BYTES }).base32;
}

/** The otpauth:// URI shown (as a QR code) at enrolment: issuer compute-gateway, labelled with the account's email. */
export function totpEnrolmentUri(secretBase32: string, email: string): string {
  return totpFor(secretBase32, email).toString();
}

export type TotpCheck =
  | {
      readonly ok: true /** The step the code belongs to: the caller stores it as the last accepted. */;
      readonly step: number;
    }
  | { readonly ok: false; readonly reason: 'invalid' | 'reused' };

/**
 * Whether `code` is the account's code at `nowMs` (±1 step). A code whose step is not after `lastAcceptedStep` is
 * refused as reused (RFC 6238 5.2: a verifier must not accept the second attempt of the same OTP), which also
 * refuses an older code still inside the window once a newer one was accepted. Spaces in the code are ignored.
 */
export function verifyTotpCode(input: {
  secretBase32: string;
  code: string;
  lastAcceptedStep: number | null;
  nowMs: number;
}): TotpCheck {
  const token = input.code.replace(/\s+/g, '');
  if (!/^\d+$/.test(token)) return { ok: false, reason: 'invalid' };
  const delta = totpFor(input.secretBase32, '').validate({ token, timestamp: input.nowMs, window: WINDOW_STEPS });
  if (delta === null) return { ok: false, reason: 'invalid' };
  const step = totpStep(input.nowMs) + delta;
  if (input.lastAcceptedStep !== null && step <= input.lastAcceptedStep) return { ok: false, reason: 'reused' };
  return { ok: true, step };
}

/** The RFC 6238 time step T = floor(unix seconds / 30) that `nowMs` falls in. */
export function totpStep(nowMs: number): number {
  return Math.floor(nowMs / 1000 / PERIOD_SEC);
}

function totpFor(secretBase32: string, label: string): TOTP {
  return new TOTP({
    issuer: TOTP_ISSUER,
    label,
    secret: Secret.fromBase32(secretBase32),
    algorithm: ALGORITHM,
    digits: DIGITS,
    period: PERIOD_SEC,
  });
}
