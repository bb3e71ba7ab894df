/**
 * createHttpServer (src/http/http-server.ts): requests and responses are born with the app's prototypes, so
 * express never re-parents them, everything express adds to them still works, and V8 keeps them fast.
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpServer } from '../../src/http/http-server.js';
import { hasFastProperties, haveSameMap } from '../setup/v8-shapes.js';

let close: (() => Promise<void>) | undefined;
afterEach(async () => close?.());

describe('createHttpServer', () => {
  it("serves the app with express's own request and response prototypes from the start", async () => {
    const app = express();
    const seen: { requestProto: boolean; responseProto: boolean }[] = [];
    app.use((req, _res, next) => {
      seen.push({
        requestProto: Object.getPrototypeOf(req) === app.request,
        responseProto: Object.getPrototypeOf(_res) === app.response,
      });
      next();
    });
    app.post('/echo/:id', express.json(), (req, res) => {
      res
        .status(201)
        .set('x-id', req.params.id)
        .json({ body: req.body as unknown, header: req.get('x-test'), app: req.app === app });
    });
    const server = createHttpServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    close = () => new Promise<void>((resolve) => server.close(() => resolve()));
    const { port } = server.address() as AddressInfo;
    for (let i = 0; i < 2; i++) {
      const response = await fetch(`http://127.0.0.1:${port}/echo/${i}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-test': 'yes' },
        body: '{"n":1}',
      });
      expect(response.status).toBe(201);
      expect(response.headers.get('x-id')).toBe(String(i));
      expect(await response.json()).toEqual({ body: { n: 1 }, header: 'yes', app: true });
    }
    expect(seen).toEqual([
      { requestProto: true, responseProto: true },
      { requestProto: true, responseProto: true },
    ]);
  });

  it('keeps requests and responses as fast-property objects of one hidden class, through the router and a body parser', async () => {
    const app = express();
    const handled: { req: object; res: object }[] = [];
    app.post('/echo/:id', express.json(), (req, res) => {
      handled.push({ req, res });
      res.json({ id: req.params.id });
    });
    const server = createHttpServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    close = () => new Promise<void>((resolve) => server.close(() => resolve()));
    const { port } = server.address() as AddressInfo;
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`http://127.0.0.1:${port}/echo/${i}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(await response.json()).toEqual({ id: String(i) });
    }
    for (const { req, res } of handled) {
      expect(hasFastProperties(req)).toBe(true);
      expect(hasFastProperties(res)).toBe(true);
    }
    expect(haveSameMap(handled[1]!.res, handled[2]!.res)).toBe(true);
  });
});
