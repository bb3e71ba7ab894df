/**
 * Machine reliability as RunPod computes its hosts' (research/marketplace.md §1b): over a 30-day rolling window,
 * (minutes the agent was heard + a 10-minute grace) / minutes in the window, at most 100 %. A machine younger than
 * the window is judged over its life, so a new machine starts at 100 %.
 */
export const MINUTE_MS = 60_000;
export const RELIABILITY_WINDOW_MINUTES = 30 * 24 * 60;
const GRACE_MINUTES = 10;
const FULL_BP = 10_000;

export function reliabilityBp(heardMinutes: number, ageMinutes: number): number {
  const window = Math.min(RELIABILITY_WINDOW_MINUTES, ageMinutes);
  if (window <= GRACE_MINUTES) return FULL_BP;
  return Math.min(FULL_BP, Math.round(((heardMinutes + GRACE_MINUTES) * FULL_BP) / window));
}
