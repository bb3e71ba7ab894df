import { describe, expect, it } from 'vitest';
import { COMMON_PASSWORDS } from '../../src/domain/accounts/common-passwords.js';
import {
  checkPasswordPolicy,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
} from '../../src/domain/accounts/password-policy.js';

describe('checkPasswordPolicy', () => {
  it('accepts a passphrase of the minimum length or more', () => {
    expect(PASSWORD_MIN_LENGTH).toBe(12);
    expect(checkPasswordPolicy('violet kettle')).toEqual({ ok: true });
    expect(checkPasswordPolicy('x7#kq9Lm2vRt')).toEqual({ ok: true });
  });

  it('asks for no composition rules: lower-case words alone will do', () => {
    expect(checkPasswordPolicy('orchard lantern meadow')).toEqual({ ok: true });
  });

  it('refuses one character short as too_short, and counts code points, not UTF-16 units', () => {
    expect(checkPasswordPolicy(`${'a'.repeat(5)}bcdefg`)).toEqual({ ok: false, reason: 'too_short' });
    expect(checkPasswordPolicy('🔑'.repeat(PASSWORD_MIN_LENGTH - 1))).toEqual({ ok: false, reason: 'too_short' });
    expect(checkPasswordPolicy('🔑'.repeat(PASSWORD_MIN_LENGTH))).toEqual({ ok: true });
  });

  it('refuses more than the maximum as too_long', () => {
    expect(PASSWORD_MAX_LENGTH).toBe(256);
    expect(checkPasswordPolicy(`${'q'.repeat(255)}z`)).toEqual({ ok: true });
    expect(checkPasswordPolicy(`${'q'.repeat(256)}z`)).toEqual({ ok: false, reason: 'too_long' });
  });

  it.each(['qwerty123456', 'QWERTY123456', '1q2w3e4r5t6y', 'Password1234', 'compute-gateway'])(
    'refuses %s as too_common (case-insensitive)',
    (password) => {
      expect(checkPasswordPolicy(password)).toEqual({ ok: false, reason: 'too_common' });
    },
  );

  it.each(['iloveyou2024!', 'sunshine12345', 'football!!!!', 'Superman 1234', 'computegateway1'])(
    'refuses %s: a listed password with digits or symbols added',
    (password) => {
      expect(checkPasswordPolicy(password)).toEqual({ ok: false, reason: 'too_common' });
    },
  );

  it('accepts a listed word inside a longer phrase, and digits that are not a listed stem’s suffix', () => {
    expect(checkPasswordPolicy('my sunshine on the hill')).toEqual({ ok: true });
    expect(checkPasswordPolicy('8301 5527 9946')).toEqual({ ok: true });
  });

  it('checks the length before the list', () => {
    expect(checkPasswordPolicy('password')).toEqual({ ok: false, reason: 'too_short' });
  });
});

describe('COMMON_PASSWORDS', () => {
  it('holds a few hundred lower-cased entries', () => {
    expect(COMMON_PASSWORDS.size).toBeGreaterThan(300);
    for (const entry of COMMON_PASSWORDS) expect(entry).toBe(entry.toLowerCase());
  });
});
