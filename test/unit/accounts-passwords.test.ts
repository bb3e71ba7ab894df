import { describe, expect, it } from 'vitest';
import {
  hashPassword,
  needsRehash,
  PASSWORD_SCRYPT_COST,
  type ScryptCost,
  verifyPassword,
} from '../../src/domain/accounts/passwords.js';

/** Cheap enough for many hashes per test; the format and checks are the same as under the production cost. */
const FAST: ScryptCost = { N: 2 ** 10, r: 8, p: 1 };

describe('hashPassword', () => {
  it('stores the scheme, the parameters, a salt and the hash in one string', async () => {
    const stored = await hashPassword('correct horse battery', FAST);
    expect(stored).toMatch(/^scrypt\$N=1024,r=8,p=1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  });

  it('salts each hash: the same password twice gives two strings, both of which verify', async () => {
    const [first, second] = await Promise.all([
      hashPassword('same password', FAST),
      hashPassword('same password', FAST),
    ]);
    expect(first).not.toBe(second);
    expect(await verifyPassword('same password', first)).toBe(true);
    expect(await verifyPassword('same password', second)).toBe(true);
  });

  it('uses OWASP’s scrypt cost by default (N=2^17, r=8, p=1), within node’s memory cap', async () => {
    expect(PASSWORD_SCRYPT_COST).toEqual({ N: 131072, r: 8, p: 1 });
    const stored = await hashPassword('a production-cost password');
    expect(stored.startsWith('scrypt$N=131072,r=8,p=1$')).toBe(true);
    expect(await verifyPassword('a production-cost password', stored)).toBe(true);
  });
});

describe('verifyPassword', () => {
  it('refuses another password, one character off, or another case', async () => {
    const stored = await hashPassword('Tr0ub4dor&3 again', FAST);
    expect(await verifyPassword('Tr0ub4dor&3 again', stored)).toBe(true);
    expect(await verifyPassword('Tr0ub4dor&3 agaim', stored)).toBe(false);
    expect(await verifyPassword('tr0ub4dor&3 again', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  it('treats composed and decomposed accents as one password (NFKC)', async () => {
    const composed = 'caf\u00e9 au lait, s’il vous plaît';
    const stored = await hashPassword(composed, FAST);
    expect(await verifyPassword(composed.normalize('NFD'), stored)).toBe(true);
  });

  it('reads the parameters from the stored string, so hashes made under another cost still verify', async () => {
    const older = await hashPassword('made under an old cost', { N: 2 ** 8, r: 4, p: 1 });
    expect(await verifyPassword('made under an old cost', older)).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['another scheme', '$2b$12$abcdefghijklmnopqrstuuABCDEFGHIJKLMNOPQRSTUVWXYZ01234'],
    ['missing the hash', 'scrypt$N=1024,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA'],
    ['N not a power of two', `scrypt$N=1000,r=8,p=1$${'A'.repeat(22)}$${'A'.repeat(43)}`],
    ['r of zero', `scrypt$N=1024,r=0,p=1$${'A'.repeat(22)}$${'A'.repeat(43)}`],
    ['a cost asking for gigabytes', `scrypt$N=16777216,r=8,p=1$${'A'.repeat(22)}$${'A'.repeat(43)}`],
    ['a hash too short to mean anything', `scrypt$N=1024,r=8,p=1$${'A'.repeat(22)}$${'A'.repeat(16)}`],
    ['characters outside base64url', `scrypt$N=1024,r=8,p=1$${'A'.repeat(22)}$${'+'.repeat(43)}`],
    ['trailing junk', `scrypt$N=1024,r=8,p=1$${'A'.repeat(22)}$${'A'.repeat(43)}$`],
  ])('answers false, without throwing, for a stored string that is %s', async (_label, stored) => {
    await expect(verifyPassword('whatever it is', stored)).resolves.toBe(false);
  });
});

describe('needsRehash', () => {
  it('is false for a hash made at the given cost', async () => {
    expect(needsRehash(await hashPassword('current', FAST), FAST)).toBe(false);
  });

  it.each([
    ['N', { N: 2 ** 9, r: 8, p: 1 }],
    ['r', { N: 2 ** 10, r: 4, p: 1 }],
  ])('is true when the stored %s is below today’s', async (_label, older) => {
    expect(needsRehash(await hashPassword('older', older), FAST)).toBe(true);
  });

  it('is false for a hash above today’s cost, and true for an unreadable string', async () => {
    expect(needsRehash(await hashPassword('stronger', { N: 2 ** 11, r: 8, p: 2 }), FAST)).toBe(false);
    expect(needsRehash('not a hash', FAST)).toBe(true);
  });

  it('compares against the production cost by default', async () => {
    expect(needsRehash(await hashPassword('cheap', FAST))).toBe(true);
  });
});
