/**
 * Refresh-token families (issue 26: "a stolen refresh token used twice revokes the family"). Signing in starts a
 * family; each refresh hands out a new refresh token in the same family and marks the presented one rotated. A
 * rotated token presented again means two parties hold it, the thief or the owner: the family is revoked, so
 * whichever of them holds the newest token loses it too, and the owner signs in again.
 *
 * The store must mark a token rotated with a compare-and-set, so that of two concurrent presentations one rotates
 * and the other sees it rotated (and revokes): two tabs refreshing at the same instant sign the person out, the
 * price of catching a replay at all.
 */

/** What the store holds for a presented refresh token (looked up by its hash). */
export interface RefreshTokenRecord {
  readonly familyId: string;
  readonly expiresAtMs: number;
  /** When it was exchanged for its successor; null while it is the family's newest. */
  readonly rotatedAtMs: number | null;
  /** When its family was revoked (sign-out, reuse, password reset); null while the family stands. */
  readonly familyRevokedAtMs: number | null;
}

export type RefreshDecision =
  | { readonly action: 'rotate'; readonly familyId: string }
  | { readonly action: 'revoke_family'; readonly familyId: string; readonly reason: 'reused' }
  | { readonly action: 'reject'; readonly reason: 'unknown' | 'revoked' | 'expired' };

/**
 * What to do with a presented refresh token. Only `rotate` issues new tokens; `revoke_family` and `reject` both
 * answer 401. Reuse is checked before expiry: an expired rotated token presented again is still a leaked one.
 */
export function decideRefresh(record: RefreshTokenRecord | null, nowMs: number): RefreshDecision {
  if (!record) return { action: 'reject', reason: 'unknown' };
  if (record.familyRevokedAtMs !== null) return { action: 'reject', reason: 'revoked' };
  if (record.rotatedAtMs !== null) return { action: 'revoke_family', familyId: record.familyId, reason: 'reused' };
  if (nowMs >= record.expiresAtMs) return { action: 'reject', reason: 'expired' };
  return { action: 'rotate', familyId: record.familyId };
}
