import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

describe('loadConfig', () => {
  it('defaults: a 5-minute request deadline, a hold 5 minutes longer than the longest job budget, response validation off in production only', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      REQUEST_DEADLINE_MS: 300_000,
      CHAT_JOB_BUDGET_MS: 600_000,
      MEDIA_JOB_BUDGET_MS: 1_800_000,
      BILLING_HOLD_TTL_MS: 2_100_000,
      VALIDATE_RESPONSES: 'report',
    });
    expect(loadConfig({ MEDIA_JOB_BUDGET_MS: '60000', IMAGE_JOB_BUDGET_MS: '60000' }).BILLING_HOLD_TTL_MS).toBe(
      600_000 + 300_000,
    );
    expect(loadConfig({ NODE_ENV: 'production' }).VALIDATE_RESPONSES).toBe('off');
  });

  it('refuses a hold that would not outlive the longest deadline (DESIGN.md 4), naming the setting', () => {
    expect(() => loadConfig({ BILLING_HOLD_TTL_MS: '300000' })).toThrow(
      /BILLING_HOLD_TTL_MS: must be longer than the longest deadline/,
    );
    // Every deadline and job budget counts, the media and image job budgets included (issue 23 item 12).
    const short = {
      REQUEST_DEADLINE_MS: '1000',
      CHAT_JOB_BUDGET_MS: '1000',
      IMAGE_RENDER_BUDGET_MS: '1000',
      IMAGE_JOB_BUDGET_MS: '1000',
      MEDIA_JOB_BUDGET_MS: '1000',
    };
    expect(loadConfig({ ...short, BILLING_HOLD_TTL_MS: '1500' }).BILLING_HOLD_TTL_MS).toBe(1500);
    for (const name of Object.keys(short)) {
      expect(() => loadConfig({ ...short, [name]: '2000', BILLING_HOLD_TTL_MS: '1500' }), name).toThrow(
        /BILLING_HOLD_TTL_MS: must be longer/,
      );
    }
  });

  it('mail: logged unless SMTP_URL names an smtp(s) server; MAIL_FROM must be one address, and no error shows the URL', () => {
    expect(loadConfig({})).toMatchObject({ MAIL_FROM: 'compute-gateway <no-reply@localhost>' });
    expect(loadConfig({}).SMTP_URL).toBeUndefined();
    const smtp = { SMTP_URL: 'smtps://mailer:s%40cret@mail.example.com:465', MAIL_FROM: 'Gateway <gw@example.com>' };
    expect(loadConfig(smtp)).toMatchObject(smtp);
    expect(loadConfig({ MAIL_FROM: 'gw@example.com' }).MAIL_FROM).toBe('gw@example.com');
    expect(() => loadConfig({ SMTP_URL: 'https://user:hunter2@mail.example.com' })).toThrow(/SMTP_URL: is smtp:\/\//);
    expect(() => loadConfig({ SMTP_URL: 'https://user:hunter2@mail.example.com' })).not.toThrow(/hunter2/);
    for (const bad of ['nobody', 'a@example.com, b@example.com', 'Name <@example.com>', ''])
      expect(() => loadConfig({ MAIL_FROM: bad }), bad).toThrow(/MAIL_FROM: is one address/);
  });

  it('names the variable of a bad value', () => {
    expect(() => loadConfig({ VALIDATE_RESPONSES: 'true' })).toThrow(/VALIDATE_RESPONSES/);
  });
});
