/**
 * DESIGN.md 5, contract:live (test/setup/prism/): the check must be able to fail. A stand-in server answers
 * `GET /v1/account` with what the contract does not allow; Prism must report each, and must pass the gateway's own
 * answers. Findings are taken here, so the hook that fails a test on them sees none.
 */
import { createServer, type OutgoingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { checkWithPrism, takeFindings } from '../setup/prism/replay.js';

let h: Harness;
let standIn: Server;
let standInUrl: string;
/** What the stand-in answers next: given to writeHead only, which `getHeaders()` would not see. */
let next: { status: number; headers?: OutgoingHttpHeaders; body: unknown } = { status: 200, body: {} };

beforeAll(async () => {
  h = await startHarness();
  standIn = createServer((_req, res) => {
    const headers = { 'content-type': 'application/json', 'x-request-id': 'req_standin', ...next.headers };
    res.writeHead(next.status, headers).end(JSON.stringify(next.body));
  });
  checkWithPrism(standIn);
  await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve));
  standInUrl = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => standIn.close(resolve));
  await h.close();
});

const answerWith = async (answer: typeof next) => {
  next = answer;
  await call(standInUrl, 'GET', '/v1/account');
  return takeFindings();
};

describe('contract:live', () => {
  it('passes the gateway’s own answers', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    expect((await call(h.baseUrl, 'GET', '/v1/account', { key: apiKey })).status).toBe(200);
    expect((await call(h.baseUrl, 'GET', '/v1/account')).status).toBe(401);
    expect(await takeFindings()).toEqual([]);
  });

  it('reports a body the schema does not allow', async () => {
    const findings = await answerWith({ status: 200, body: { data: { account_id: 42 } } });
    expect(findings).toContain(
      'GET /v1/account answered 200: response.body.data.account_id Response body property data.account_id must be string (Error)',
    );
  });

  it('reports a declared header of the wrong type', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const { body } = await call(h.baseUrl, 'GET', '/v1/account', { key: apiKey });
    const findings = await answerWith({ status: 200, headers: { 'x-ratelimit-limit': 'many' }, body });
    expect(findings).toEqual([expect.stringMatching(/^GET \/v1\/account answered 200: response\.header.*integer/)]);
  });

  it('reports a status the operation does not declare, an error status too', async () => {
    for (const status of [201, 418]) {
      const findings = await answerWith({ status, body: {} });
      expect(findings).toEqual([
        expect.stringContaining(`answered ${status}: response Unable to match the returned status`),
      ]);
    }
  });
});
