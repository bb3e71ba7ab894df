/** The sessions half of the credential-store conformance suite (credential-store.conformance.ts runs it). */
import { describe, expect, it } from 'vitest';
import type { NewSession } from '../../src/adapters/credential-store/index.js';
import { decideRefresh } from '../../src/domain/accounts/refresh-rotation.js';
import { ACCESS_TOKEN_TTL_MS, issueSessionToken } from '../../src/domain/accounts/session-tokens.js';
import { newId } from '../../src/lib/ids.js';
import { type MakeLogin, RACERS, type Store, T0 } from './credential-store.conformance.js';

const MINUTE_MS = 60_000;

/** A session's tokens as the domain issues them; the store sees only their hashes. */
function sessionInput(accountId: string, familyId = newId('fam'), createdAtMs = T0): NewSession {
  const access = issueSessionToken('access', createdAtMs);
  const refresh = issueSessionToken('refresh', createdAtMs);
  return {
    id: newId('ses'),
    accountId,
    familyId,
    accessHash: access.hash,
    refreshHash: refresh.hash,
    accessExpiresAtMs: access.expiresAtMs,
    refreshExpiresAtMs: refresh.expiresAtMs,
    createdAtMs,
    userAgent: 'test-agent/1.0',
    ip: '192.0.2.7',
  };
}

/** The successor of a rotation: fresh tokens; account and family are the store's to copy. */
function successor(createdAtMs: number) {
  const { accountId: _account, familyId: _family, ...rest } = sessionInput('unused', 'unused', createdAtMs);
  return rest;
}

export function sessionCases(store: Store, login: MakeLogin): void {
  describe('sessions', () => {
    it('creates a session found by its access hash while live, and by its refresh hash always', async () => {
      const { accountId } = await login();
      const input = sessionInput(accountId);
      const created = await store().createSession(input);
      expect(created).toEqual({ ...input, lastUsedAtMs: T0, rotatedAtMs: null, revokedAtMs: null });
      expect(await store().findSessionByAccessHash(input.accessHash, T0 + 1)).toEqual(created);
      expect(await store().findSessionByAccessHash(input.accessHash, T0 + ACCESS_TOKEN_TTL_MS)).toBeNull();
      expect(await store().findSessionByAccessHash(input.refreshHash, T0)).toBeNull();
      await store().touchSession(created.id, T0 + 5);
      await store().touchSession(created.id, T0 + 3);
      expect((await store().findSessionByRefreshHash(input.refreshHash))?.lastUsedAtMs).toBe(T0 + 5);
      expect(await store().revokeSession(created.id, T0 + 6)).toBe(true);
      expect(await store().revokeSession(created.id, T0 + 7)).toBe(false);
      expect(await store().findSessionByAccessHash(input.accessHash, T0 + 1)).toBeNull();
      expect(await store().findSessionByRefreshHash(input.refreshHash)).toMatchObject({ revokedAtMs: T0 + 6 });
      expect(await store().findSessionByRefreshHash('0'.repeat(64))).toBeNull();
    });

    it('lists live sessions newest first, and revokes a family or all of an account but one', async () => {
      const { accountId } = await login();
      const [a, b, c] = [T0, T0 + 1, T0 + 2].map((at) => sessionInput(accountId, newId('fam'), at));
      for (const s of [a!, b!, c!]) await store().createSession(s);
      const live = await store().listLiveSessions(accountId, T0 + 10);
      expect(live.map((s) => s.id)).toEqual([c!.id, b!.id, a!.id]);
      expect(await store().listLiveSessions(accountId, a!.refreshExpiresAtMs + 2)).toEqual([]);

      expect(await store().revokeFamily(a!.familyId, T0 + 11)).toBe(1);
      expect(await store().revokeAccountSessions(accountId, T0 + 12, c!.id)).toBe(1);
      expect((await store().listLiveSessions(accountId, T0 + 13)).map((s) => s.id)).toEqual([c!.id]);
      expect(await store().revokeAccountSessions(accountId, T0 + 14)).toBe(1);
      expect(await store().listLiveSessions(accountId, T0 + 15)).toEqual([]);
    });

    it('revokes and counts only live sessions when signing out everywhere; a rotated one stays a reuse', async () => {
      const { accountId } = await login();
      const first = await store().createSession(sessionInput(accountId));
      const rotated = await store().rotateSession(first.refreshHash, successor(T0 + 1), T0 + 1);
      const expired = sessionInput(accountId, newId('fam'), T0 - 40 * 24 * 60 * MINUTE_MS);
      await store().createSession(expired);
      expect(rotated.ok).toBe(true);
      expect(await store().revokeAccountSessions(accountId, T0 + 2)).toBe(1);
      const old = await store().findSessionByRefreshHash(first.refreshHash);
      expect(old).toMatchObject({ rotatedAtMs: T0 + 1, revokedAtMs: null });
      expect((await store().findSessionByRefreshHash(expired.refreshHash))?.revokedAtMs).toBeNull();
    });

    it('sweeps sessions whose refresh token expired', async () => {
      const { accountId } = await login();
      const far = 4_000_000_000_000; // later than any other test's sessions
      const old = sessionInput(accountId, newId('fam'), far);
      const recent = sessionInput(accountId, newId('fam'), far + 1);
      await store().createSession(old);
      await store().createSession(recent);
      expect(await store().sweepExpiredSessions(old.refreshExpiresAtMs)).toBeGreaterThanOrEqual(1);
      expect(await store().findSessionByRefreshHash(old.refreshHash)).toBeNull();
      expect(await store().findSessionByRefreshHash(recent.refreshHash)).not.toBeNull();
    });
  });
}

export function rotationCases(store: Store, login: MakeLogin): void {
  describe('refresh rotation', () => {
    it('marks the old session rotated and inserts its successor in the same family', async () => {
      const { accountId } = await login();
      const first = await store().createSession(sessionInput(accountId));
      const next = successor(T0 + MINUTE_MS);
      const outcome = await store().rotateSession(first.refreshHash, next, T0 + MINUTE_MS);
      expect(outcome).toEqual({
        ok: true,
        session: {
          ...next,
          accountId,
          familyId: first.familyId,
          lastUsedAtMs: next.createdAtMs,
          rotatedAtMs: null,
          revokedAtMs: null,
        },
      });
      const old = await store().findSessionByRefreshHash(first.refreshHash);
      expect(old?.rotatedAtMs).toBe(T0 + MINUTE_MS);
      expect(await store().findSessionByAccessHash(first.accessHash, T0 + MINUTE_MS)).toBeNull();
      // The domain's rule on what the store answers: the old token again is a reuse.
      const record = {
        familyId: old!.familyId,
        expiresAtMs: old!.refreshExpiresAtMs,
        rotatedAtMs: old!.rotatedAtMs,
        familyRevokedAtMs: old!.revokedAtMs,
      };
      expect(decideRefresh(record, T0 + 2 * MINUTE_MS).action).toBe('revoke_family');
      expect(await store().rotateSession(first.refreshHash, successor(T0), T0)).toEqual({
        ok: false,
        reason: 'already_rotated',
      });
      expect(await store().revokeFamily(first.familyId, T0 + 3 * MINUTE_MS)).toBe(2);
      expect(await store().rotateSession(next.refreshHash, successor(T0), T0)).toEqual({
        ok: false,
        reason: 'revoked',
      });
      expect(await store().rotateSession('0'.repeat(64), successor(T0), T0)).toEqual({ ok: false, reason: 'unknown' });
    });

    it('lets exactly one of concurrent rotations of one refresh token win', async () => {
      const { accountId } = await login();
      const first = await store().createSession(sessionInput(accountId));
      const outcomes = await Promise.all(
        Array.from({ length: RACERS }, () => store().rotateSession(first.refreshHash, successor(T0 + 1), T0 + 1)),
      );
      expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
      expect(outcomes.filter((o) => !o.ok)).toEqual(
        Array.from({ length: RACERS - 1 }, () => ({ ok: false, reason: 'already_rotated' })),
      );
      expect(await store().listLiveSessions(accountId, T0 + 2)).toHaveLength(1);
    });
  });
}
