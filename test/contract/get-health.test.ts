import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('GET /healthz', () => {
  it('200: alive, in the native envelope, with a request id', async () => {
    const data = expectNativeOk(await call(h.baseUrl, 'GET', '/healthz'));
    expect(data).toEqual({ status: 'ok' });
  });

  it('400: an unknown query parameter is invalid_request naming it', async () => {
    const response = await call(h.baseUrl, 'GET', '/healthz?verbose=1');
    expectNativeError(response, 400, 'invalid_request');
    expect(response.body.data.meta.fields[0].loc).toEqual(['query', 'verbose']);
  });

  it('403: the python-requests default User-Agent gets plain text, no envelope, no request id (SPEC 5.5)', async () => {
    const response = await call(h.baseUrl, 'GET', '/healthz', { headers: { 'user-agent': 'python-requests/2.32.3' } });
    expect(response.status).toBe(403);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(response.headers.get('x-request-id')).toBeNull();
    expect(response.body).toBeUndefined();
  });

  it('any other User-Agent passes, including ones that merely mention requests', async () => {
    for (const userAgent of ['python-httpx/0.27', 'my-app python-requests/2.0', 'curl/8.5.0']) {
      expect((await call(h.baseUrl, 'GET', '/healthz', { headers: { 'user-agent': userAgent } })).status).toBe(200);
    }
  });
});
