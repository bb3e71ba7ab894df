import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCompatError } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('GET /v1/compat/models/{model}', () => {
  it('200: every listed model, native and external, retrieved by id in the same shape as in the list', async () => {
    const { apiKey } = await h.newAccount();
    const listed = (await call(h.baseUrl, 'GET', '/v1/compat/models', { key: apiKey })).body.data as { id: string }[];
    const external = h.deps.catalog.view(null).external_models[0]!;
    for (const id of ['text-embedding-3-small', external]) {
      const response = await call(h.baseUrl, 'GET', `/v1/compat/models/${encodeURIComponent(id)}`, { key: apiKey });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual(listed.find((m) => m.id === id));
    }
  });

  it('200: an external id with a slash, sent unencoded as typed, is the same model', async () => {
    const { apiKey } = await h.newAccount();
    const external = h.deps.catalog.view(null).external_models.find((id) => id.includes('/'))!;
    const encoded = await call(h.baseUrl, 'GET', `/v1/compat/models/${encodeURIComponent(external)}`, { key: apiKey });
    const unencoded = await call(h.baseUrl, 'GET', `/v1/compat/models/${external}`, { key: apiKey });
    expect(unencoded.status, unencoded.text).toBe(200);
    expect(unencoded.body).toEqual(encoded.body);
    expect(unencoded.body.id).toBe(external);
    expectCompatError(
      await call(h.baseUrl, 'GET', '/v1/compat/models/no-such/model', { key: apiKey }),
      404,
      'model_not_found',
    );
    expect((await call(h.baseUrl, 'POST', `/v1/compat/models/${external}`, { key: apiKey })).status).toBe(405);
  });

  it('404 model_not_found in the compat envelope, naming the param, for an id not in the list (and for an unavailable model)', async () => {
    const { apiKey } = await h.newAccount();
    const unknown = await call(h.baseUrl, 'GET', '/v1/compat/models/no-such-model', { key: apiKey });
    expectCompatError(unknown, 404, 'model_not_found');
    expect(unknown.body.error).toMatchObject({ param: 'model', type: 'invalid_request_error' });
    expect(unknown.headers.get('x-should-retry')).toBe('false');
    const unavailable = h.deps.catalog.view(null).models.find((m) => !m.available);
    if (unavailable !== undefined)
      expectCompatError(
        await call(h.baseUrl, 'GET', `/v1/compat/models/${unavailable.slug}`, { key: apiKey }),
        404,
        'model_not_found',
      );
  });

  it('401 authentication_required without a key', async () => {
    expectCompatError(
      await call(h.baseUrl, 'GET', '/v1/compat/models/text-embedding-3-small'),
      401,
      'authentication_required',
    );
  });
});
