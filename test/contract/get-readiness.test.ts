import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('GET /readyz', () => {
  it('200: ready while the database answers', async () => {
    const data = expectNativeOk(await call(h.baseUrl, 'GET', '/readyz'));
    expect(data).toEqual({ status: 'ready', checks: { database: 'ok' } });
  });

  it('503 not_ready once the database is gone, retryable', async () => {
    const broken = await startHarness();
    try {
      await broken.deps.db.knex.destroy();
      const response = await call(broken.baseUrl, 'GET', '/readyz');
      expectNativeError(response, 503, 'not_ready');
      expect(response.headers.get('x-should-retry')).toBe('true');
    } finally {
      await broken.close().catch(() => undefined);
    }
  });
});
