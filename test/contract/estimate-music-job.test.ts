/** POST /v1/llm/music/jobs/estimate (SPEC 4.3): the kickoff's price (duration × tracks) and checks; nothing held. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const JOBS = '/v1/llm/music/jobs';

describe('POST /v1/llm/music/jobs/estimate', () => {
  it('a two-track model holds duration × 2 seconds, at list and at the caller’s price', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const estimate = expectNativeOk(
      await call(h.baseUrl, 'POST', `${JOBS}/estimate`, {
        key: apiKey,
        body: { model: 'suno-v5', prompt: 'Trains', duration: 40 },
      }),
    );
    expect(estimate).toEqual({
      model: 'suno-v5',
      unit: 'second',
      units: 80,
      estimated_cost_usd: 0.048,
      discounted_cost_usd: 0.048,
    });
  });
});
