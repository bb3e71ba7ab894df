import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCompatError } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('GET /v1/compat/models', () => {
  it('200 with Bearer and with X-API-Key: the list shape, the external tier included', async () => {
    const { apiKey } = await h.newAccount();
    for (const keyHeader of ['bearer', 'x-api-key'] as const) {
      const response = await call(h.baseUrl, 'GET', '/v1/compat/models', { key: apiKey, keyHeader });
      expect(response.status).toBe(200);
      expect(response.body.object).toBe('list');
      const ids = response.body.data.map((m: { id: string }) => m.id);
      const catalog = h.deps.catalog.view(null);
      for (const external of catalog.external_models) expect(ids).toContain(external);
      expect(ids).toContain('text-embedding-3-small');
      for (const model of response.body.data) {
        expect(model.object).toBe('model');
        expect(Number.isInteger(model.created)).toBe(true);
      }
    }
  });

  it('lists only available native models', async () => {
    const { apiKey } = await h.newAccount();
    const ids = new Set(
      (await call(h.baseUrl, 'GET', '/v1/compat/models', { key: apiKey })).body.data.map((m: { id: string }) => m.id),
    );
    for (const model of h.deps.catalog.view(null).models) expect(ids.has(model.slug)).toBe(model.available);
  });

  it('401 authentication_required in the compat envelope without a key', async () => {
    expectCompatError(await call(h.baseUrl, 'GET', '/v1/compat/models'), 401, 'authentication_required');
  });

  it('400 invalid_request for an unknown query parameter, compat envelope with fields', async () => {
    const { apiKey } = await h.newAccount();
    const response = await call(h.baseUrl, 'GET', '/v1/compat/models?limit=5', { key: apiKey });
    expectCompatError(response, 400, 'invalid_request');
    expect(response.body.error.meta.fields[0].loc).toEqual(['query', 'limit']);
  });
});
