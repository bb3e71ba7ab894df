/** POST /v1/llm/audio/jobs/estimate (SPEC 4.3): the kickoff's price and checks; nothing held or rendered. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNativeOk } from '../setup/envelopes.js';
import { call, startHarness, type Harness } from '../setup/harness.js';

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
    const estimate = expectNativeOk(await call(h.baseUrl, 'POST', `${JOBS}/estimate`, { key: apiKey, body: { model: 'eleven-v3', input: TEXT } }));
    // eleven-v3: $0.00009 a character.
    expect(estimate).toEqual({ model: 'eleven-v3', unit: 'character', units: TEXT.length, estimated_cost_usd: 0.00009 * TEXT.length, discounted_cost_usd: 0.00009 * TEXT.length });
    expect((await h.deps.ledger.getBalance(accountId)).heldMicros).toBe(0n);
  });
});
