import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

describe('loadConfig', () => {
  it('defaults: a 5-minute request deadline, a 15-minute hold, response validation off in production only', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ REQUEST_DEADLINE_MS: 300_000, CHAT_JOB_BUDGET_MS: 600_000, BILLING_HOLD_TTL_MS: 900_000, VALIDATE_RESPONSES: 'report' });
    expect(loadConfig({ NODE_ENV: 'production' }).VALIDATE_RESPONSES).toBe('off');
  });

  it('refuses a hold that would not outlive the longest deadline (DESIGN.md 4), naming the setting', () => {
    expect(() => loadConfig({ BILLING_HOLD_TTL_MS: '300000' })).toThrow(/BILLING_HOLD_TTL_MS: must be longer than the longest deadline/);
    expect(() => loadConfig({ BILLING_HOLD_TTL_MS: '700000', CHAT_JOB_BUDGET_MS: '700000' })).toThrow(/BILLING_HOLD_TTL_MS/);
    expect(loadConfig({ BILLING_HOLD_TTL_MS: '700000' }).BILLING_HOLD_TTL_MS).toBe(700_000);
  });

  it('names the variable of a bad value', () => {
    expect(() => loadConfig({ VALIDATE_RESPONSES: 'true' })).toThrow(/VALIDATE_RESPONSES/);
  });
});
