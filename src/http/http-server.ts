import { createServer, IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { Express } from 'express';

/**
 * The node:http server for the app, whose requests and responses are born with express's prototypes.
 *
 * Express re-parents every request and response (`Object.setPrototypeOf(req, app.request)`), and V8 then keeps
 * those objects through young-generation collections: measured here, every request's objects were promoted to
 * the old generation and each scavenge paused 3-4 ms instead of 0.3 ms, enough to set the sequential p99 (see
 * README, where the time goes). Constructing them with express's prototypes already in place makes that call a
 * no-op. `app.listen` would build a plain server: main.ts and the test harness both serve through this one.
 *
 * They are instances of subclasses of node's own classes, whose prototypes take the place of express's: V8 then
 * lays them out with room for the fields node's constructors set. A plain function that ran
 * `ServerResponse.call(this)` gave them none, and the first symbol-keyed field past twelve turned every response
 * into a dictionary-mode object (V8's map log); `Reflect.construct` with a plain function as `new.target` builds
 * a new hidden class on every call.
 */
export function createHttpServer(app: Express): Server {
  class AppRequest extends IncomingMessage {}
  class AppResponse extends ServerResponse {}
  app.request = standIn(AppRequest.prototype, app.request) as Express['request'];
  app.response = standIn(AppResponse.prototype, app.response) as Express['response'];
  return createServer({ IncomingMessage: AppRequest, ServerResponse: AppResponse }, app);
}

/** Makes a class's prototype stand in for one of express's: the same parent and the same own fields (`app`). */
function standIn(classPrototype: object, expressPrototype: object): object {
  Object.setPrototypeOf(classPrototype, Object.getPrototypeOf(expressPrototype));
  Object.defineProperties(classPrototype, Object.getOwnPropertyDescriptors(expressPrototype));
  return classPrototype;
}
