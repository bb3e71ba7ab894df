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

describe('GET /openapi.yaml', () => {
  it('200 application/yaml: parses to the bundled contract and to what /openapi.json serves', async () => {
    const response = await call(h.baseUrl, 'GET', '/openapi.yaml');
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/yaml/);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    const document = parseYaml(response.text);
    expect(document).toEqual(parseYaml(readFileSync(CONTRACT_FILE, 'utf8')));
    expect(document).toEqual((await call(h.baseUrl, 'GET', '/openapi.json')).body);
    // Written out in full: no anchors or aliases for a reader to chase.
    expect(response.text).not.toMatch(/^\s*[\w-]+: [&*]\w+/m);
  });

  it('the same bytes on a second request, with no key and with a bogus one', async () => {
    const first = await call(h.baseUrl, 'GET', '/openapi.yaml');
    const second = await call(h.baseUrl, 'GET', '/openapi.yaml', { key: `cgw_${'Z'.repeat(40)}` });
    expect(second.status, second.text).toBe(200);
    expect(second.text).toBe(first.text);
  });

  it('400 invalid_request for an unknown query parameter (native envelope)', async () => {
    const response = await call(h.baseUrl, 'GET', '/openapi.yaml?download=1');
    expectNativeError(response, 400, 'invalid_request');
    expect(response.body.data.meta.fields[0].loc).toEqual(['query', 'download']);
  });

  it('403: the python-requests default User-Agent is refused at the edge (SPEC 5.5)', async () => {
    const response = await call(h.baseUrl, 'GET', '/openapi.yaml', {
      headers: { 'user-agent': 'python-requests/2.32.3' },
    });
    expect(response.status).toBe(403);
  });
});
