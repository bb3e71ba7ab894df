import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  consumeRecoveryCode,
  generateRecoveryCodes,
  RECOVERY_CODE_COUNT,
  recoveryCodeHash,
} from '../../src/domain/accounts/recovery-codes.js';

describe('generateRecoveryCodes', () => {
  it('makes ten codes of four groups of four, from an alphabet without look-alikes', () => {
    const codes = generateRecoveryCodes();
    expect(RECOVERY_CODE_COUNT).toBe(10);
    expect(codes).toHaveLength(10);
    for (const code of codes) {
      expect(code).toMatch(/^[2-9a-hjkmnp-z]{4}(-[2-9a-hjkmnp-z]{4}){3}$/);
      expect(code).not.toMatch(/[01ilo]/);
    }
    expect(new Set(codes).size).toBe(10);
  });
});

describe('recoveryCodeHash', () => {
  it('is the SHA-256 hex of the code without hyphens, whatever the case or spacing typed', () => {
    const [code] = generateRecoveryCodes();
    const bare = code!.replaceAll('-', '');
    expect(recoveryCodeHash(code!)).toBe(createHash('sha256').update(bare).digest('hex'));
    expect(recoveryCodeHash(code!.toUpperCase().replaceAll('-', ' '))).toBe(recoveryCodeHash(code!));
  });
});

describe('consumeRecoveryCode', () => {
  const codes = generateRecoveryCodes();
  const hashes = codes.map(recoveryCodeHash);

  it('uses a matching code once: answers its hash and the others that remain', () => {
    const outcome = consumeRecoveryCode(codes[3]!, hashes);
    expect(outcome).toEqual({ ok: true, usedHash: hashes[3], remainingHashes: hashes.filter((_, i) => i !== 3) });
    if (!outcome.ok) throw new Error('expected a match');
    expect(consumeRecoveryCode(codes[3]!, outcome.remainingHashes)).toEqual({ ok: false });
  });

  it('accepts the code as people type it back (upper case, spaces for hyphens)', () => {
    expect(consumeRecoveryCode(` ${codes[0]!.toUpperCase().replaceAll('-', ' ')} `, hashes).ok).toBe(true);
  });

  it.each([
    ['another code', generateRecoveryCodes()[0]!],
    ['a code one symbol off', codes[5]!.slice(0, -1) + (codes[5]!.endsWith('2') ? '3' : '2')],
    ['a code with a look-alike', `${codes[5]!.slice(0, -1)}0`],
    ['too short', codes[5]!.slice(0, -5)],
    ['empty', ''],
  ])('refuses %s', (_label, presented) => {
    expect(consumeRecoveryCode(presented, hashes)).toEqual({ ok: false });
  });

  it('refuses everything once no codes remain, and skips stored values that are not hashes', () => {
    expect(consumeRecoveryCode(codes[0]!, [])).toEqual({ ok: false });
    expect(consumeRecoveryCode(codes[0]!, ['not hex', hashes[0]!])).toMatchObject({ ok: true, usedHash: hashes[0] });
  });
});
