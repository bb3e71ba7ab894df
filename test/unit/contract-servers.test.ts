/**
 * The contract's `servers` entry is a template (`{scheme}://{host}`, DESIGN.md 12: a generated client reaches any
 * deployment without a hand edit). Its defaults must be the embedded gateway's, and the template must not move the
 * base path express-openapi-validator derives from it: a request outside every base path is not validated at all
 * (the validator calls next() and the handler sees whatever was sent), so a template it read as a path prefix
 * would switch request validation off silently. The server validates each path against a one-path slice of the
 * contract (src/http/contract-slice.ts) that keeps `servers` as it is; one validator over the whole contract reads
 * the same base path and compiles much faster than a hundred slices.
 */
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { OpenAPIV3 } from 'express-openapi-validator/dist/framework/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from '../../src/composition/index.js';
import { loadConfig } from '../../src/config.js';

const contract = loadContract();
const PASSED = 299;

/** An app that validates requests against the contract and answers PASSED when the validator let one by. */
function validatingApp(): express.Express {
  const app = express();
  app.use(express.json());
  app.use(
    OpenApiValidator.middleware({
      apiSpec: contract as unknown as OpenAPIV3.DocumentV3,
      validateRequests: { allowUnknownQueryParameters: false },
      validateResponses: false,
      validateSecurity: false,
      validateApiSpec: false,
    }) as RequestHandler[],
  );
  app.use((_req, res) => {
    res.status(PASSED).end();
  });
  const toStatus: ErrorRequestHandler = (err: { status?: number }, _req, res, _next) => {
    res.status(err.status ?? 500).end();
  };
  app.use(toStatus);
  return app;
}

describe('servers', () => {
  it('is one template whose defaults are the embedded gateway (HOST, PORT)', () => {
    const defaults = loadConfig({});
    expect(contract.servers).toHaveLength(1);
    const [server] = contract.servers!;
    expect(server!.url).toBe('{scheme}://{host}');
    expect(server!.variables?.scheme).toMatchObject({ default: 'http', enum: ['http', 'https'] });
    expect(server!.variables?.host?.default).toBe(`${defaults.HOST}:${defaults.PORT}`);
  });

  describe('request validation under the template', () => {
    let base = '';
    let close: () => Promise<void> = async () => {};
    beforeAll(async () => {
      const server = validatingApp().listen(0, '127.0.0.1');
      await new Promise<void>((resolve) => server.once('listening', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      close = () => new Promise<void>((resolve) => server.close(() => resolve()));
    });
    afterAll(async () => close());

    it('matches every path: a method the path does not declare is 405, not let through', async () => {
      // A 405 needs the path matched under a base path, and compiles no schema, so a hundred paths stay fast.
      const outcomes: string[] = [];
      for (const [path, item] of Object.entries(contract.paths ?? {})) {
        const missing = ['put', 'patch', 'delete', 'post', 'get'].find((method) => !(method in (item ?? {})))!;
        // Upper case: fetch sends a method as written, and Node's parser refuses a lower-case PATCH with 400.
        const response = await fetch(`${base}${path.replace(/\{[^}]+\}/g, 'sample_1')}`, {
          method: missing.toUpperCase(),
        });
        outcomes.push(`${missing} ${path} ${response.status}`);
      }
      expect(outcomes.filter((outcome) => !outcome.endsWith(' 405'))).toEqual([]);
      expect(outcomes.length).toBeGreaterThan(90);
    });

    it('validates a request it matched, lets a valid one through, and refuses a path it does not document', async () => {
      expect((await fetch(`${base}/healthz`)).status).toBe(PASSED);
      expect((await fetch(`${base}/healthz?undeclared_parameter=1`)).status).toBe(400);
      const badName = { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{"name": 7}' };
      expect((await fetch(`${base}/v1/llm/api-keys/key_1`, badName)).status).toBe(400);
      expect((await fetch(`${base}/v1/undocumented`)).status).toBe(404);
    });
  });
});
