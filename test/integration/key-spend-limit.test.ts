/**
 * Issue 26 item 6 over HTTP: a key with a spend limit answers 402 `key_spend_limit_reached` once its period has no
 * room for a request's worst case, never having been charged past the limit; the account's other key keeps
 * working; the next UTC period starts afresh. The service's clock is pinned, so the period is the test's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '../../src/domain/accounts/accounts.js';
import { usdToMicros } from '../../src/domain/billing/money.js';
import { expectCompatError, expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { chat } from './gateway-helpers.js';

let h: Harness;
const clock = { now: Date.parse('2026-05-20T08:00:00.000Z') };
beforeAll(async () => {
  h = await startHarness({ RATE_LIMIT_PER_KEY_PER_MINUTE: '1000' }, { now: () => clock.now });
});
afterAll(() => h.close());

const LIMIT_USD = 0.001;
/** gpt-5-mini holds max_tokens × $2/Mtok: 200 micro-USD and a little for the prompt, so a few calls fit. */
const CALL = { max_tokens: 100 };

const keySpentMicros = async (accountId: string, keyId: string) =>
  (await h.deps.usageLog.totals(accountId, { keyId })).costMicros;

describe('key spend limits over HTTP', () => {
  it('402 key_spend_limit_reached at the limit, never charged past it; another key works; the next day resets', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const limited = await issueKey(h.deps.apiKeys, accountId, 'limited', () => clock.now, { managesKeys: false });
    const settings = { spend_limit: { amount_usd: LIMIT_USD, period: 'day' } };
    expectNativeOk(
      await call(h.baseUrl, 'PATCH', `/v1/llm/api-keys/${limited.record.id}`, { key: apiKey, body: settings }),
    );

    let refused: Awaited<ReturnType<typeof chat>> | null = null;
    let served = 0;
    for (let i = 0; i < 50 && refused === null; i++) {
      const response = await chat(h, limited.secret, CALL);
      if (response.status === 200) served++;
      else refused = response;
    }
    expect(served).toBeGreaterThan(0);
    expect(refused).not.toBeNull();
    expectCompatError(refused!, 402, 'key_spend_limit_reached');
    expect(refused!.headers.get('x-should-retry')).toBe('false');
    expect(refused!.body.error.message).toContain('2026-05-21T00:00:00.000Z');
    const spent = await keySpentMicros(accountId, limited.record.id);
    expect(spent).toBeLessThanOrEqual(usdToMicros(LIMIT_USD));
    expect(spent).toBeGreaterThan(0n);

    // What the key has left is the limit less what it was charged: nothing is held once the calls have answered.
    const keys = expectNativeOk(await call(h.baseUrl, 'GET', '/v1/llm/api-keys', { key: apiKey })).keys;
    const shown = keys.find((k: { id: string }) => k.id === limited.record.id);
    expect(usdToMicros(shown.spend_limit_remaining_usd)).toBe(usdToMicros(LIMIT_USD) - spent);
    expect(shown.spend_limit_resets_at).toBe('2026-05-21T00:00:00.000Z');

    // The account's other key is not limited by it.
    expect((await chat(h, apiKey, CALL)).status).toBe(200);

    // The next UTC day, the limited key has its whole limit again.
    clock.now = Date.parse('2026-05-21T00:00:00.000Z');
    expect((await chat(h, limited.secret, CALL)).status).toBe(200);
  });

  it('a failed call gives its key hold back: a refused request leaves the key’s room as it was', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const settings = { spend_limit: { amount_usd: 0.0003, period: 'month' } };
    const keyId = (await h.deps.apiKeys.listKeys(accountId))[0]!.id;
    expectNativeOk(await call(h.baseUrl, 'PATCH', `/v1/llm/api-keys/${keyId}`, { key: apiKey, body: settings }));
    // A worst case beyond the limit is refused before anything is held; a smaller call then fits.
    expectCompatError(await chat(h, apiKey, { max_tokens: 1000 }), 402, 'key_spend_limit_reached');
    expect((await chat(h, apiKey, CALL)).status).toBe(200);
  });

  it('a media job of a limited key is held against the limit too (native envelope), nothing held when refused', async () => {
    const { accountId, apiKey, keyId } = await h.newAccount(undefined, { balanceUsd: 10 });
    const settings = { spend_limit: { amount_usd: 0.01, period: 'week' } };
    expectNativeOk(await call(h.baseUrl, 'PATCH', `/v1/llm/api-keys/${keyId}`, { key: apiKey, body: settings }));
    const body = { model: 'imgG-4o', prompt: 'Fog over a harbour' };
    const response = await call(h.baseUrl, 'POST', '/v1/llm/images/jobs', { key: apiKey, body });
    expectNativeError(response, 402, 'key_spend_limit_reached');
    expect(response.body.data.meta).toMatchObject({ limit_usd: 0.01, period: 'week', resets_at: expect.any(String) });
    expect((await h.deps.ledger.getBalance(accountId)).heldMicros).toBe(0n);
  });
});
