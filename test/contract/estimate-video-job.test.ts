/** POST /v1/llm/videos/jobs/estimate (SPEC 4.3, 4.6): the kickoff's price per second by resolution; nothing held. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const JOBS = '/v1/llm/videos/jobs';

describe('POST /v1/llm/videos/jobs/estimate', () => {
  it('prices per second by resolution (vidA-2-5: 480p draft $0.198/s, 720p $0.36/s, 1080p $0.86/s); nothing held', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const estimate = (body: Record<string, unknown>) =>
      call(h.baseUrl, 'POST', `${JOBS}/estimate`, { key: apiKey, body: { model: 'vidA-2-5', prompt: 'x', ...body } });
    expect(expectNativeOk(await estimate({ duration: 8, resolution: '1080p' }))).toEqual({
      model: 'vidA-2-5',
      unit: 'second',
      units: 8,
      estimated_cost_usd: 6.88,
      discounted_cost_usd: 6.88,
    });
    expect(expectNativeOk(await estimate({ duration: 5, resolution: '480p' }))).toMatchObject({
      estimated_cost_usd: 0.99,
    });
    expect(expectNativeOk(await estimate({ duration: 5, resolution: '720p' }))).toMatchObject({
      estimated_cost_usd: 1.8,
    });
  });
});
