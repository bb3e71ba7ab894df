import { describe, expect, it } from 'vitest';
import { decideRefresh, type RefreshTokenRecord } from '../../src/domain/accounts/refresh-rotation.js';

const NOW_MS = 1_800_000_000_000;
const fresh: RefreshTokenRecord = {
  familyId: 'ses_family1',
  expiresAtMs: NOW_MS + 60_000,
  rotatedAtMs: null,
  familyRevokedAtMs: null,
};

describe('decideRefresh', () => {
  it('rotates the family’s newest token while it is valid', () => {
    expect(decideRefresh(fresh, NOW_MS)).toEqual({ action: 'rotate', familyId: 'ses_family1' });
  });

  it('revokes the whole family when a rotated token comes back (a stolen token used twice)', () => {
    const rotated = { ...fresh, rotatedAtMs: NOW_MS - 5_000 };
    expect(decideRefresh(rotated, NOW_MS)).toEqual({
      action: 'revoke_family',
      familyId: 'ses_family1',
      reason: 'reused',
    });
  });

  it('revokes on reuse even once the rotated token has expired', () => {
    const rotatedAndExpired = { ...fresh, rotatedAtMs: NOW_MS - 120_000, expiresAtMs: NOW_MS - 60_000 };
    expect(decideRefresh(rotatedAndExpired, NOW_MS).action).toBe('revoke_family');
  });

  it('rejects a token it does not know', () => {
    expect(decideRefresh(null, NOW_MS)).toEqual({ action: 'reject', reason: 'unknown' });
  });

  it('rejects any token of a revoked family, rotated or not, without revoking again', () => {
    const revoked = { ...fresh, familyRevokedAtMs: NOW_MS - 1 };
    expect(decideRefresh(revoked, NOW_MS)).toEqual({ action: 'reject', reason: 'revoked' });
    expect(decideRefresh({ ...revoked, rotatedAtMs: NOW_MS - 2 }, NOW_MS)).toEqual({
      action: 'reject',
      reason: 'revoked',
    });
  });

  it('rejects an expired token from its expiry on', () => {
    expect(decideRefresh(fresh, fresh.expiresAtMs - 1).action).toBe('rotate');
    expect(decideRefresh(fresh, fresh.expiresAtMs)).toEqual({ action: 'reject', reason: 'expired' });
  });
});
