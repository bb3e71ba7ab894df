/**
 * DESIGN.md 5, contract:live (test/setup/prism/): the check must be able to fail. A stand-in server answers
 * `GET /v1/account` with bodies and statuses the contract does not allow; Prism must report each, and must pass the
 * gateway's own answer. Findings are taken here, so the hook that fails a test on them sees none.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { checkWithPrism, takeFindings } from '../setup/prism/replay.js';

let h: Harness;
let standIn: Server;
let standInUrl: string;
/** What the stand-in answers next. */
let next = { status: 200, body: '{}' };

beforeAll(async () => {
  h = await startHarness();
  standIn = createServer((_req, res) => {
    res.writeHead(next.status, { 'content-type': 'application/json', 'x-request-id': 'req_standin' }).end(next.body);
  });
  checkWithPrism(standIn);
  await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve));
  standInUrl = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => standIn.close(resolve));
  await h.close();
});

describe('contract:live', () => {
  it('passes the gateway’s own answers', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    expect((await call(h.baseUrl, 'GET', '/v1/account', { key: apiKey })).status).toBe(200);
    expect((await call(h.baseUrl, 'GET', '/v1/account')).status).toBe(401);
    expect(await takeFindings()).toEqual([]);
  });

  it('reports a body the schema does not allow', async () => {
    next = { status: 200, body: JSON.stringify({ data: { account_id: 42 } }) };
    await call(standInUrl, 'GET', '/v1/account');
    const findings = await takeFindings();
    expect(findings.length).toBeGreaterThan(0);
    expect(findings.join('\n')).toMatch(/^GET \/v1\/account answered 200: response\.body/m);
  });

  it('reports a status the operation does not declare', async () => {
    next = { status: 201, body: '{}' };
    await call(standInUrl, 'GET', '/v1/account');
    expect((await takeFindings()).join('\n')).toContain('Unable to match the returned status code');
  });
});
