import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCompatError } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('response validation (on in tests and development)', () => {
  it('a response that leaves the contract becomes 500 internal_error and is logged, never sent', async () => {
    const { apiKey } = await h.newAccount();
    const original = h.deps.catalog.compatModels.bind(h.deps.catalog);
    h.deps.catalog.compatModels = () => ({ object: 'list', data: [{ id: 42 }] }) as never;
    try {
      const response = await call(h.baseUrl, 'GET', '/v1/compat/models', { key: apiKey });
      expectCompatError(response, 500, 'internal_error');
      expect(response.text).not.toContain('42');
      expect(h.logs.some((line) => line.msg === 'unhandled error')).toBe(true);
    } finally {
      h.deps.catalog.compatModels = original;
    }
  });
});
