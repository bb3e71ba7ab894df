import { createHmac, timingSafeEqual } from 'node:crypto';
import { randomBase62 } from '../../lib/ids.js';
import { isRecord } from '../../lib/is-record.js';

/**
 * Signed one-time tokens: the links mailed to a person (email confirmation, a new address, password reset; issue 26
 * items 1, 5 and 7) and the TOTP enrolment handed back to its client. The token carries its purpose, the account
 * id, a subject, an expiry and a random nonce, signed with HMAC-SHA-256 under a server secret, so it is checked
 * without a database read and cannot be forged or re-aimed at another account. The subject binds the token to the
 * state it was issued for (the address it confirms, a fingerprint of the password it may replace, the secret being
 * enrolled): the caller compares it with the account's state, so a link dies once that state changed. Single use
 * is not the token's: the store marks the nonce used when a link is followed, and refuses a nonce it has seen.
 *
 * Token: `<payload>.<signature>`, both base64url; the payload is JSON `{ p, a, s, e, n }` (purpose, account id,
 * subject, expiry in ms, nonce), readable by its holder. The MAC covers a label and the payload, so this secret's
 * MACs mean nothing elsewhere.
 */
export type LinkPurpose = 'confirm_email' | 'change_email' | 'reset_password' | 'totp_enrol';

const PURPOSES: readonly LinkPurpose[] = ['confirm_email', 'change_email', 'reset_password', 'totp_enrol'];

/**
 * A day to confirm an address; an hour to use a reset link (OWASP Forgot Password Cheat Sheet: short-lived); ten
 * minutes to type a code from a newly loaded authenticator app.
 */
export const LINK_TTL_MS: Readonly<Record<LinkPurpose, number>> = {
  confirm_email: 24 * 60 * 60 * 1000,
  change_email: 24 * 60 * 60 * 1000,
  reset_password: 60 * 60 * 1000,
  totp_enrol: 10 * 60 * 1000,
};

/** Where each mailed link lands: the issue's "whose URL carries it as ?token="; an enrolment is never mailed. */
const LINK_PATHS: Readonly<Record<LinkPurpose, string | null>> = {
  confirm_email: '/confirm',
  change_email: '/confirm',
  reset_password: '/password-reset',
  totp_enrol: null,
};

const MAC_LABEL = 'compute-gateway account link v1\n';
const MIN_SECRET_BYTES = 32;
const NONCE_LENGTH = 22; // base62: ≈ 131 bits
const MAX_TOKEN_LENGTH = 512;
const TOKEN_PATTERN = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/;

export interface LinkClaims {
  readonly purpose: LinkPurpose;
  readonly accountId: string;
  /** What the token was issued for; the caller checks it still holds. */
  readonly subject: string;
  readonly expiresAtMs: number;
  /** What the store marks used. */
  readonly nonce: string;
}

export interface IssuedLink extends LinkClaims {
  readonly token: string;
  /** The page the mailed link opens; null for a purpose never mailed. */
  readonly url: string | null;
}

export type LinkCheck =
  | { readonly ok: true; readonly claims: LinkClaims }
  | { readonly ok: false; readonly reason: 'malformed' | 'bad_signature' | 'wrong_purpose' | 'expired' };

export class SignedLinks {
  constructor(
    private readonly secret: Buffer,
    /** Where people reach the service (PUBLIC_BASE_URL), e.g. `https://gateway.example.com`. */
    private readonly publicBaseUrl: string,
  ) {
    if (secret.length < MIN_SECRET_BYTES)
      throw new RangeError(`link secret must be at least ${MIN_SECRET_BYTES} bytes`);
  }

  /** A new token for `purpose` to `accountId` about `subject`, valid from `nowMs` for the purpose's lifetime. */
  issue(purpose: LinkPurpose, accountId: string, subject: string, nowMs: number): IssuedLink {
    const claims: LinkClaims = {
      purpose,
      accountId,
      subject,
      expiresAtMs: nowMs + LINK_TTL_MS[purpose],
      nonce: randomBase62(NONCE_LENGTH),
    };
    const { expiresAtMs: e, nonce: n } = claims;
    const payload = Buffer.from(JSON.stringify({ p: purpose, a: accountId, s: subject, e, n })).toString('base64url');
    const token = `${payload}.${this.#mac(payload)}`;
    const path = LINK_PATHS[purpose];
    const base = this.publicBaseUrl.replace(/\/+$/, '');
    return { ...claims, token, url: path === null ? null : `${base}${path}?token=${encodeURIComponent(token)}` };
  }

  /**
   * The claims of `token` when it is ours, for `purpose`, and not expired at `nowMs`; otherwise why not. Never
   * throws: whatever arrives in `?token=` gets a typed answer. The signature is checked before the payload is read.
   */
  verify(token: string, purpose: LinkPurpose | readonly LinkPurpose[], nowMs: number): LinkCheck {
    const match = token.length <= MAX_TOKEN_LENGTH ? TOKEN_PATTERN.exec(token) : null;
    if (!match) return { ok: false, reason: 'malformed' };
    // Compared as text, not decoded bytes: base64url's last character has spare bits, and a variant of it must fail.
    const given = Buffer.from(match[2]!);
    const expected = Buffer.from(this.#mac(match[1]!));
    if (!timingSafeEqual(given, expected)) return { ok: false, reason: 'bad_signature' };
    const claims = parseClaims(match[1]!);
    if (!claims) return { ok: false, reason: 'malformed' };
    if (!(typeof purpose === 'string' ? [purpose] : purpose).includes(claims.purpose))
      return { ok: false, reason: 'wrong_purpose' };
    if (nowMs >= claims.expiresAtMs) return { ok: false, reason: 'expired' };
    return { ok: true, claims };
  }

  /** The signature of `payload`, base64url (43 characters). */
  #mac(payload: string): string {
    return createHmac('sha256', this.secret).update(MAC_LABEL).update(payload).digest('base64url');
  }
}

function parseClaims(payload: string): LinkClaims | null {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!isRecord(decoded)) return null;
  const { p, a, s, e, n } = decoded;
  if (!PURPOSES.includes(p as LinkPurpose) || typeof a !== 'string' || typeof s !== 'string') return null;
  if (typeof n !== 'string' || typeof e !== 'number' || !Number.isSafeInteger(e)) return null;
  return { purpose: p as LinkPurpose, accountId: a, subject: s, expiresAtMs: e, nonce: n };
}
