import type { IncomingMessage } from 'node:http';

/**
 * The exact bytes of a request body, for operations whose contract says `x-raw-body: true` (payment webhooks: a
 * signature covers the bytes as sent, which parsing and re-serialising would not reproduce).
 */
const RAW = Symbol('rawBody');

type WithRawBody = IncomingMessage & { [RAW]?: Buffer };

/** A body parser `verify` hook that keeps the bytes beside the parsed body. */
export function keepRawBody(req: IncomingMessage, _res: unknown, body: Buffer): void {
  (req as WithRawBody)[RAW] = body;
}

/** The bytes kept by keepRawBody; empty when the operation keeps none. */
export function rawBodyOf(req: IncomingMessage): Buffer {
  return (req as WithRawBody)[RAW] ?? Buffer.alloc(0);
}
