import { IncomingMessage, ServerResponse, createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';

/**
 * The node:http server for the app, whose requests and responses are born with express's prototypes.
 *
 * Express re-parents every request and response (`Object.setPrototypeOf(req, app.request)`), and V8 then keeps
 * those objects through young-generation collections: measured here, every request's objects were promoted to
 * the old generation and each scavenge paused 3-4 ms instead of 0.3 ms, enough to set the sequential p99 (see
 * README, where the time goes). Constructing them with express's prototypes already in place makes that call a
 * no-op. `app.listen` would build a plain server: main.ts and the test harness both serve through this one.
 */
export function createHttpServer(app: Express): Server {
  function AppRequest(this: IncomingMessage, socket: Socket): void {
    IncomingMessage.call(this, socket);
  }
  AppRequest.prototype = app.request;
  function AppResponse(this: ServerResponse, req: IncomingMessage, options?: object): void {
    (ServerResponse as unknown as (this: ServerResponse, req: IncomingMessage, options?: object) => void).call(this, req, options);
  }
  AppResponse.prototype = app.response;
  return createServer(
    { IncomingMessage: AppRequest as unknown as typeof IncomingMessage, ServerResponse: AppResponse as unknown as typeof ServerResponse },
    app,
  );
}
