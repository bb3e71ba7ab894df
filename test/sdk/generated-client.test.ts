/**
 * The SDK generated from the contract (@hey-api/openapi-ts, generated/client) against a live server: what a
 * client team gets by running `make generate` on our documents.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../generated/client/client/index.js';
import {
  createApiKey,
  getModelCatalog,
  listApiKeys,
  listCompatModels,
  revokeApiKey,
} from '../../generated/client/sdk.gen.js';
import { type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('generated SDK', () => {
  it('reads the public catalog without a key', async () => {
    const client = createClient({ baseUrl: h.baseUrl });
    const { data, response } = await getModelCatalog({ client });
    expect(response.status).toBe(200);
    expect(data?.data.models.length).toBeGreaterThanOrEqual(370);
  });

  it('manages keys with the bearer scheme and reads typed errors', async () => {
    const { apiKey } = await h.newAccount();
    const client = createClient({ baseUrl: h.baseUrl, auth: () => apiKey });
    const created = await createApiKey({ client, body: { name: 'from-sdk' } });
    expect(created.response.status).toBe(201);
    const newKey = created.data?.data.api_key ?? '';
    expect(newKey).toMatch(/^cgw_/);
    const listed = await listApiKeys({ client });
    expect(listed.data?.data.keys.map((k) => k.name)).toContain('from-sdk');
    const models = await listCompatModels({ client: createClient({ baseUrl: h.baseUrl, auth: () => newKey }) });
    expect(models.data?.object).toBe('list');
    await revokeApiKey({ client, path: { key_id: created.data?.data.key.id ?? '' } });
    const refused = await listCompatModels({ client: createClient({ baseUrl: h.baseUrl, auth: () => newKey }) });
    expect(refused.response.status).toBe(401);
    const error = refused.error;
    expect(typeof error === 'object' ? error.error.code : error).toBe('api_key_revoked');
  });
});
