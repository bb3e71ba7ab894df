/**
 * SPEC 4.3, 4.6 and the acceptance: for every media kind the estimate equals the later charge for the same
 * request: the list price for an account without a discount, the caller's price for one with a discount, because
 * the estimate, the hold and the charge call one pricing function. On the embedded sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setDiscounts } from '../../src/domain/accounts/accounts.js';
import { expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { untilTerminal } from '../setup/jobs.js';
import { micros } from '../setup/money.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ MEDIA_POLL_MS: '50' });
});
afterAll(() => h.close());

const KINDS = [
  { kind: 'image', jobs: '/v1/llm/images/jobs', body: { model: 'imgG-2', prompt: 'Dunes', size: '2048x1152', n: 2 } },
  {
    kind: 'speech',
    jobs: '/v1/llm/audio/jobs',
    body: { model: 'eleven-v3', input: 'A sentence read aloud, priced per character.' },
  },
  {
    kind: 'music',
    jobs: '/v1/llm/music/jobs',
    body: { model: 'suno-v5', prompt: 'A waltz', duration: 30, output_format: 'wav' },
  },
  {
    kind: 'video',
    jobs: '/v1/llm/videos/jobs',
    body: { model: 'vidA-2-5', prompt: 'Rain', duration: 4, resolution: '480p' },
  },
] as const;

describe.each([
  { who: 'no discount', discounts: null, price: 'estimated_cost_usd' },
  {
    who: 'a 20 % discount (25 % on the 2K tier)',
    discounts: { discountPercent: 20, tierDiscounts: { '2K': 25 } },
    price: 'discounted_cost_usd',
  },
] as const)('an account with $who', ({ discounts, price }) => {
  it.each(KINDS)(
    '$kind: the estimate is what the job is charged',
    async ({ jobs, body }) => {
      const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
      if (discounts !== null) {
        await setDiscounts(h.deps.apiKeys, accountId, discounts);
        h.deps.authenticator.invalidate({ accountId });
      }
      const estimate = expectNativeOk(await call(h.baseUrl, 'POST', `${jobs}/estimate`, { key: apiKey, body }));
      if (discounts !== null) expect(estimate.discounted_cost_usd).toBeLessThan(estimate.estimated_cost_usd);
      const job = expectNativeOk(await call(h.baseUrl, 'POST', jobs, { key: apiKey, body }), 202);
      const done = await untilTerminal(h, jobs, apiKey, job.job_id, 20_000);
      expect(done.status).toBe('completed');
      expect(done.cost_usd).toBe(estimate[price]);
      expect(await h.deps.ledger.postedSpend(accountId)).toBe(micros(estimate[price]));
    },
    30_000,
  );
});
