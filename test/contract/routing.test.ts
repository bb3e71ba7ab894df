import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCompatError, expectNativeError } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('answers no single operation owns', () => {
  it('404 route_not_found in the envelope of the path', async () => {
    expectNativeError(await call(h.baseUrl, 'GET', '/v1/llm/nothing-here'), 404, 'route_not_found');
    expectCompatError(await call(h.baseUrl, 'GET', '/v1/compat/nothing-here'), 404, 'route_not_found');
  });

  it('405 method_not_allowed with Allow when the path exists', async () => {
    const response = await call(h.baseUrl, 'PUT', '/v1/llm/models/catalog');
    expectNativeError(response, 405, 'method_not_allowed');
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expectCompatError(await call(h.baseUrl, 'DELETE', '/v1/compat/models'), 405, 'method_not_allowed');
  });

  it('413 and malformed JSON answer in the compat envelope on compat paths', async () => {
    const { apiKey } = await h.newAccount();
    const path = '/v1/compat/embeddings';
    const big = await call(h.baseUrl, 'POST', path, {
      key: apiKey,
      rawBody: 'x'.repeat(21 * 1024 * 1024),
      headers: { 'content-type': 'application/json' },
    });
    expectCompatError(big, 413, 'request_too_large');
    const broken = await call(h.baseUrl, 'POST', path, {
      key: apiKey,
      rawBody: '{',
      headers: { 'content-type': 'application/json' },
    });
    expectCompatError(broken, 400, 'invalid_request');
  });

  it('a body is read only for an operation that exists and a caller who may call it', async () => {
    const big = { rawBody: 'x'.repeat(21 * 1024 * 1024), headers: { 'content-type': 'application/json' } };
    expectCompatError(await call(h.baseUrl, 'POST', '/v1/compat/embeddings', big), 401, 'authentication_required');
    expectCompatError(await call(h.baseUrl, 'POST', '/v1/compat/models', big), 405, 'method_not_allowed');
    expectNativeError(await call(h.baseUrl, 'POST', '/v1/llm/nothing-here', big), 404, 'route_not_found');
  });

  it('body caps per operation (x-max-body-bytes): 20 KB is too much for a new key, not for a chat', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const pad = 'x'.repeat(20 * 1024);
    expectNativeError(
      await call(h.baseUrl, 'POST', '/v1/llm/api-keys', { key: apiKey, body: { name: 'k', pad } }),
      413,
      'request_too_large',
    );
    expectNativeError(
      await call(h.baseUrl, 'PUT', '/v1/settings/rub-billing', { key: apiKey, body: { enabled: true, pad } }),
      413,
      'request_too_large',
    );
    const chat = await call(h.baseUrl, 'POST', '/v1/compat/chat/completions', {
      key: apiKey,
      body: { model: 'gpt-5-mini', messages: [{ role: 'user', content: pad }], max_tokens: 8 },
    });
    expect(chat.status, chat.text).toBe(200);
  });

  it('CORS: preflight answers 204 and responses expose the request id and rate-limit headers', async () => {
    const preflight = await fetch(`${h.baseUrl}/v1/compat/models`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'x-api-key',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/X-API-Key/);
    // What the official openai SDK sends from a browser: every header it asks for is granted.
    const sdkHeaders =
      'authorization, content-type, idempotency-key, openai-organization, openai-project, x-stainless-arch, x-stainless-lang, x-stainless-retry-count, x-stainless-timeout';
    const sdkPreflight = await fetch(`${h.baseUrl}/v1/compat/chat/completions`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': sdkHeaders,
      },
    });
    expect(sdkPreflight.status).toBe(204);
    const granted = (sdkPreflight.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/\s*,\s*/);
    for (const header of sdkHeaders.split(', ')) expect(granted).toContain(header);
    expect(sdkPreflight.headers.get('vary')).toMatch(/Access-Control-Request-Headers/);
    // A malformed list is not echoed (it could not be a header name list, and would not be a valid header value).
    const odd = await fetch(`${h.baseUrl}/v1/compat/models`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'x-ok, (bad)',
      },
    });
    expect(odd.status).toBe(204);
    expect(odd.headers.get('access-control-allow-headers')).not.toContain('bad');
    const response = await call(h.baseUrl, 'GET', '/healthz', { headers: { origin: 'https://app.example' } });
    const exposed = response.headers.get('access-control-expose-headers') ?? '';
    for (const header of [
      'X-Request-ID',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'Retry-After',
    ]) {
      expect(exposed).toContain(header);
    }
  });

  it('every request id is unique', async () => {
    const ids = await Promise.all(
      Array.from({ length: 20 }, async () => (await call(h.baseUrl, 'GET', '/healthz')).headers.get('x-request-id')),
    );
    expect(new Set(ids).size).toBe(20);
  });
});
