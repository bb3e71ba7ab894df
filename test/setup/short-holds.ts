/**
 * A server with holds shorter than the default job budgets must shorten those too: it refuses to start with a hold
 * that would not outlive every deadline and job budget (src/config.ts, HOLD_MUST_OUTLIVE).
 */
export const jobBudgetsWithin = (ms: number): Record<string, string> => ({
  IMAGE_RENDER_BUDGET_MS: String(ms),
  IMAGE_JOB_BUDGET_MS: String(ms),
  MEDIA_JOB_BUDGET_MS: String(ms),
});
