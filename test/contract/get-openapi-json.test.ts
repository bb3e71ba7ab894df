import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { CONTRACT_FILE } from '../../src/composition/index.js';
import { expectNativeError } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** The bundled contract as the service reads it (src/composition/config-files.ts). */
const bundled = () => parseYaml(readFileSync(CONTRACT_FILE, 'utf8'));

describe('GET /openapi.json', () => {
  it('200 application/json: the bundled contract, servers as written, after other operations were served', async () => {
    // Each path's validator is built from the contract on first use: serving some first shows none of that
    // building leaks into the document handed out.
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    expect((await call(h.baseUrl, 'GET', '/v1/llm/models/catalog')).status).toBe(200);
    expect((await call(h.baseUrl, 'GET', '/v1/account', { key: apiKey })).status).toBe(200);
    const chat = await call(h.baseUrl, 'POST', '/v1/compat/chat/completions', {
      key: apiKey,
      body: { model: 'gpt-5-nano', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(chat.status, chat.text).toBe(200);

    const response = await call(h.baseUrl, 'GET', '/openapi.json');
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    expect(response.body).toEqual(bundled());
    expect(response.body.openapi).toBe('3.1.0');
    expect(response.body.servers).toEqual(bundled().servers);
    expect(response.body.paths['/openapi.json'].get.operationId).toBe('getOpenapiJson');
  });

  it('public while the rest of the API needs a key: no key, a bogus key, a browser asking for HTML', async () => {
    const account = await call(h.baseUrl, 'GET', '/v1/account');
    expect(account.status, account.text).toBe(401);
    const anonymous = await call(h.baseUrl, 'GET', '/openapi.json');
    expect(anonymous.status).toBe(200);
    const bogus = await call(h.baseUrl, 'GET', '/openapi.json', { key: `cgw_${'Z'.repeat(40)}` });
    expect(bogus.status, bogus.text).toBe(200);
    expect(bogus.headers.get('x-ratelimit-limit')).toBeNull();
    const browser = await call(h.baseUrl, 'GET', '/openapi.json', {
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    });
    expect(browser.status, browser.text).toBe(200);
    expect(browser.body.info.title).toBe(bundled().info.title);
  });

  it('400 invalid_request for an unknown query parameter (native envelope)', async () => {
    const response = await call(h.baseUrl, 'GET', '/openapi.json?format=yaml');
    expectNativeError(response, 400, 'invalid_request');
    expect(response.body.data.meta.fields[0].loc).toEqual(['query', 'format']);
  });

  it('403: the python-requests default User-Agent is refused at the edge, as everywhere (SPEC 5.5)', async () => {
    const response = await call(h.baseUrl, 'GET', '/openapi.json', {
      headers: { 'user-agent': 'python-requests/2.32.3' },
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
  });
});
