/** GET /v1/llm/chats: the caller's chats, newest first, paged; nobody else's. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { sleep } from '../setup/time.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('GET /v1/llm/chats', () => {
  it('lists the caller’s chats newest first, with limit and offset, and none of another account’s', async () => {
    const { apiKey } = await h.newAccount();
    const other = await h.newAccount();
    const made = [];
    for (const title of ['first', 'second', 'third']) {
      made.push(expectNativeOk(await call(h.baseUrl, 'POST', '/v1/llm/chats', { key: apiKey, body: { title } }), 201));
      await sleep(5);
    }
    await call(h.baseUrl, 'POST', '/v1/llm/chats', { key: other.apiKey, body: { title: 'not yours' } });
    expect(
      expectNativeOk(await call(h.baseUrl, 'GET', '/v1/llm/chats', { key: apiKey })).chats.map(
        (c: { title: string }) => c.title,
      ),
    ).toEqual(['third', 'second', 'first']);
    expect(
      expectNativeOk(await call(h.baseUrl, 'GET', '/v1/llm/chats?limit=1&offset=1', { key: apiKey })).chats,
    ).toEqual([made[1]]);
  });

  it('400 for a bad limit; 401 without a key', async () => {
    const { apiKey } = await h.newAccount();
    expectNativeError(await call(h.baseUrl, 'GET', '/v1/llm/chats?limit=0', { key: apiKey }), 400, 'invalid_request');
    expectNativeError(await call(h.baseUrl, 'GET', '/v1/llm/chats'), 401, 'authentication_required');
  });
});
