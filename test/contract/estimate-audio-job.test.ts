/** POST /v1/llm/audio/jobs/estimate (SPEC 4.3): the kickoff's price and checks; nothing held or rendered. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setDiscounts } from '../../src/domain/accounts/accounts.js';
import { expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const JOBS = '/v1/llm/audio/jobs';
const TEXT = 'The quick brown fox jumps over the lazy dog, twice over.';

describe('POST /v1/llm/audio/jobs/estimate', () => {
  it('prices the characters of input at list and at the caller’s price; nothing held', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const estimate = expectNativeOk(
      await call(h.baseUrl, 'POST', `${JOBS}/estimate`, { key: apiKey, body: { model: 'eleven-v3', input: TEXT } }),
    );
    // eleven-v3: $0.00009 a character.
    expect(estimate).toEqual({
      model: 'eleven-v3',
      unit: 'character',
      units: TEXT.length,
      estimated_cost_usd: 0.00009 * TEXT.length,
      discounted_cost_usd: 0.00009 * TEXT.length,
    });
    expect((await h.deps.ledger.getBalance(accountId)).heldMicros).toBe(0n);
  });

  it('a discount applies to the total, rounded once: 4,000 characters of tts-1 at 10 % off are $0.054, not $0.056 (issue 24)', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    await setDiscounts(h.deps.apiKeys, accountId, { discountPercent: 10, tierDiscounts: {} });
    const ask = (model: string, characters: number) =>
      call(h.baseUrl, 'POST', `${JOBS}/estimate`, { key: apiKey, body: { model, input: 'a'.repeat(characters) } });
    expect(expectNativeOk(await ask('tts-1', 4000))).toMatchObject({
      estimated_cost_usd: 0.06,
      discounted_cost_usd: 0.054,
    });
    // $0.000001 and $0.000005 a character keep their 10 % (they were billed at list price).
    expect(expectNativeOk(await ask('kokoro-82m', 5000))).toMatchObject({
      estimated_cost_usd: 0.005,
      discounted_cost_usd: 0.0045,
    });
    expect(expectNativeOk(await ask('orpheus-3b', 4000))).toMatchObject({
      estimated_cost_usd: 0.02,
      discounted_cost_usd: 0.018,
    });
    expect(expectNativeOk(await ask('inworld-tts-1', 2000))).toMatchObject({
      estimated_cost_usd: 0.01,
      discounted_cost_usd: 0.009,
    });
  });
});
