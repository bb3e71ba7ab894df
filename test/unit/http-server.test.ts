/**
 * createHttpServer (src/http/http-server.ts): requests and responses are born with the app's prototypes, so
 * express never re-parents them, and everything express adds to them still works.
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpServer } from '../../src/http/http-server.js';

let close: (() => Promise<void>) | undefined;
afterEach(async () => close?.());

describe('createHttpServer', () => {
  it("serves the app with express's own request and response prototypes from the start", async () => {
    const app = express();
    const seen: { requestProto: boolean; responseProto: boolean }[] = [];
    app.use((req, _res, next) => {
      seen.push({ requestProto: Object.getPrototypeOf(req) === app.request, responseProto: Object.getPrototypeOf(_res) === app.response });
      next();
    });
    app.post('/echo/:id', express.json(), (req, res) => {
      res.status(201).set('x-id', req.params.id).json({ body: req.body as unknown, header: req.get('x-test'), app: req.app === app });
    });
    const server = createHttpServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    close = () => new Promise<void>((resolve) => server.close(() => resolve()));
    const { port } = server.address() as AddressInfo;
    for (let i = 0; i < 2; i++) {
      const response = await fetch(`http://127.0.0.1:${port}/echo/${i}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-test': 'yes' }, body: '{"n":1}' });
      expect(response.status).toBe(201);
      expect(response.headers.get('x-id')).toBe(String(i));
      expect(await response.json()).toEqual({ body: { n: 1 }, header: 'yes', app: true });
    }
    expect(seen).toEqual([
      { requestProto: true, responseProto: true },
      { requestProto: true, responseProto: true },
    ]);
  });
});
