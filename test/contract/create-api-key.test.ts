import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ BODY_LIMIT_BYTES: '2048' });
});
afterAll(() => h.close());

const create = (key: string, options: Parameters<typeof call>[3] = {}) =>
  call(h.baseUrl, 'POST', '/v1/llm/api-keys', { key, ...options });

describe('POST /v1/llm/api-keys', () => {
  it('201: a new key, shown once, that works at once', async () => {
    const { apiKey } = await h.newAccount();
    const data = expectNativeOk(await create(apiKey, { body: { name: 'ci' } }), 201);
    expect(data.api_key).toMatch(/^cgw_[0-9A-Za-z]{40}$/);
    expect(data.key).toMatchObject({ name: 'ci', status: 'active', last_used_at: null, revoked_at: null });
    expectNativeOk(await call(h.baseUrl, 'GET', '/v1/llm/api-keys', { key: data.api_key, keyHeader: 'x-api-key' }));
  });

  it('key scopes: the first key manages keys; a minted one does not unless asked, so a leaked one cannot mint or revoke', async () => {
    const { apiKey } = await h.newAccount();
    const keys = expectNativeOk(await call(h.baseUrl, 'GET', '/v1/llm/api-keys', { key: apiKey })).keys;
    expect(keys[0].scopes).toEqual(['keys']);
    const plain = expectNativeOk(await create(apiKey, { body: { name: 'app' } }), 201);
    expect(plain.key.scopes).toEqual([]);
    const manager = expectNativeOk(await create(apiKey, { body: { name: 'admin', scopes: ['keys'] } }), 201);
    expect(manager.key.scopes).toEqual(['keys']);
    // The plain key calls the API and lists keys, but cannot mint a key nor revoke one.
    expectNativeOk(await call(h.baseUrl, 'GET', '/v1/account', { key: plain.api_key }));
    expectNativeOk(await call(h.baseUrl, 'GET', '/v1/llm/api-keys', { key: plain.api_key }));
    const mint = await create(plain.api_key, { body: { name: 'escape' } });
    expectNativeError(mint, 403, 'key_scope_required');
    expect(mint.headers.get('x-should-retry')).toBe('false');
    expectNativeError(
      await call(h.baseUrl, 'DELETE', `/v1/llm/api-keys/${manager.key.id}`, { key: plain.api_key }),
      403,
      'key_scope_required',
    );
    // A manager revokes the plain key: it is gone for good, with nothing it could have minted.
    expectNativeOk(await call(h.baseUrl, 'DELETE', `/v1/llm/api-keys/${plain.key.id}`, { key: manager.api_key }));
    expectNativeError(await call(h.baseUrl, 'GET', '/v1/account', { key: plain.api_key }), 401, 'api_key_revoked');
    expect(expectNativeOk(await call(h.baseUrl, 'GET', '/v1/llm/api-keys', { key: apiKey })).keys).toHaveLength(3);
  });

  it('201 with no body at all: the name defaults to "default"', async () => {
    const { apiKey } = await h.newAccount();
    expect(expectNativeOk(await create(apiKey), 201).key.name).toBe('default');
  });

  it('400 invalid_request lists each field: too long a name', async () => {
    const { apiKey } = await h.newAccount();
    const response = await create(apiKey, { body: { name: 'x'.repeat(65) } });
    expectNativeError(response, 400, 'invalid_request');
    expect(response.body.data.error).toMatch(/^body\.name: /);
    expect(response.body.data.meta.fields[0]).toMatchObject({ type: 'maxLength', loc: ['body', 'name'] });
  });

  it('400 invalid_request for an unknown field and for a wrong type', async () => {
    const { apiKey } = await h.newAccount();
    const unknown = await create(apiKey, { body: { name: 'a', scope: 'admin' } });
    expectNativeError(unknown, 400, 'invalid_request');
    expect(unknown.body.data.meta.fields[0].type).toBe('additionalProperties');
    const wrongType = await create(apiKey, { body: { name: 7 } });
    expectNativeError(wrongType, 400, 'invalid_request');
    expect(wrongType.body.data.meta.fields[0]).toMatchObject({ type: 'type', loc: ['body', 'name'] });
  });

  it('400 invalid_request for malformed JSON, and nothing is created', async () => {
    const { apiKey, accountId } = await h.newAccount();
    const response = await create(apiKey, { rawBody: '{"name": ', headers: { 'content-type': 'application/json' } });
    expectNativeError(response, 400, 'invalid_request');
    expect(await h.deps.apiKeys.listKeys(accountId)).toHaveLength(1);
  });

  it('413 request_too_large over the body cap', async () => {
    const { apiKey } = await h.newAccount();
    expectNativeError(await create(apiKey, { body: { name: 'x'.repeat(4096) } }), 413, 'request_too_large');
  });

  it('415 unsupported_media_type for a body that is not JSON', async () => {
    const { apiKey } = await h.newAccount();
    expectNativeError(
      await create(apiKey, { rawBody: 'name=x', headers: { 'content-type': 'text/plain' } }),
      415,
      'unsupported_media_type',
    );
  });

  it('401 before validation: no key and a bad body answers authentication_required', async () => {
    expectNativeError(
      await call(h.baseUrl, 'POST', '/v1/llm/api-keys', { body: { name: 7 } }),
      401,
      'authentication_required',
    );
  });
});
