/** A time the wire shows (ms since the epoch) as ISO 8601 UTC; null stays null (not yet, never). */
export function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
