import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamError, type UpstreamProvider } from '../../src/adapters/upstream/index.js';
import { expectNativeError } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('GET /metrics', () => {
  it('200 text/plain in the Prometheus format, with process metrics; public (no key)', async () => {
    const response = await call(h.baseUrl, 'GET', '/metrics');
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    expect(response.text).toMatch(/^# TYPE process_cpu_user_seconds_total counter$/m);
    expect(response.text).toMatch(/^process_cpu_user_seconds_total \d+(\.\d+)?(e[-+]?\d+)?$/m);
    expect(response.text).toMatch(/^# HELP /m);
    // Not a rate-limited, key-authenticated call.
    expect(response.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('with METRICS_TOKEN set: 401 without it or with another token (an API key is not it), 200 with it', async () => {
    const token = 'metrics-token-0123456789';
    const guarded = await startHarness({ METRICS_TOKEN: token });
    try {
      expectNativeError(await call(guarded.baseUrl, 'GET', '/metrics'), 401, 'authentication_required');
      const { apiKey } = await guarded.newAccount();
      expectNativeError(
        await call(guarded.baseUrl, 'GET', '/metrics', { key: apiKey }),
        401,
        'authentication_required',
      );
      expectNativeError(
        await call(guarded.baseUrl, 'GET', '/metrics', { key: `${token}x` }),
        401,
        'authentication_required',
      );
      const allowed = await call(guarded.baseUrl, 'GET', '/metrics', { key: token });
      expect(allowed.status, allowed.text).toBe(200);
      expect(allowed.text).toContain('process_cpu_user_seconds_total');
    } finally {
      await guarded.close();
    }
  });

  it('without METRICS_TOKEN, a loopback client needs nothing: a bogus key still gets 200', async () => {
    const bearer = await call(h.baseUrl, 'GET', '/metrics', { key: `cgw_${'Z'.repeat(40)}` });
    expect(bearer.status, bearer.text).toBe(200);
    const header = await call(h.baseUrl, 'GET', '/metrics', { key: 'not-a-key', keyHeader: 'x-api-key' });
    expect(header.status, header.text).toBe(200);
    expect(header.text).toContain('process_cpu_user_seconds_total');
  });

  it('gateway_chain_exhausted_total counts one alert per request whose upstream chain was exhausted', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const provider = h.deps.routes.chain('gpt-5-nano', 'chat')[0]!.provider as UpstreamProvider;
    const original = provider.chat;
    provider.chat = async () => {
      throw new UpstreamError({ kind: 'http', status: 500, message: 'down' });
    };
    try {
      for (let i = 0; i < 2; i++) {
        const response = await call(h.baseUrl, 'POST', '/v1/compat/chat/completions', {
          key: apiKey,
          body: { model: 'gpt-5-nano', messages: [{ role: 'user', content: 'hi' }] },
        });
        expect(response.status, response.text).toBe(502);
      }
    } finally {
      provider.chat = original;
    }
    const metrics = await call(h.baseUrl, 'GET', '/metrics');
    expect(metrics.text).toMatch(
      /^gateway_chain_exhausted_total\{model="gpt-5-nano",code="upstream_server_error"\} 2$/m,
    );
    expect(h.logs.filter((line) => line.event === 'chain_exhausted' && line.slug === 'gpt-5-nano')).toHaveLength(2);
  });

  it('400 invalid_request for an unknown query parameter (native envelope)', async () => {
    const response = await call(h.baseUrl, 'GET', '/metrics?format=json');
    expect(response.status, response.text).toBe(400);
    expect(response.body.exception).toBe(400);
    expect(response.body.data.error_code).toBe('invalid_request');
  });
});
