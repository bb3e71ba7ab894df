import type { Request, Response } from 'express';
import type { operations } from '../../generated/openapi.js';
import type { Deps } from '../composition/index.js';
import type { Principal } from '../domain/keys/authenticator.js';

/** Every operation of the contract, by operationId. */
export type OperationId = keyof operations;

type Responses<K extends OperationId> = operations[K]['responses'];
type ContentOf<R> = R extends { content: infer C } ? C[keyof C] : never;
/** A text or binary body (text/csv, text/plain, a hosted file) may be sent as the bytes it is. */
type BodyFor<C> = C extends string ? C | Buffer : C;
type SuccessStatus<K extends OperationId> = Extract<keyof Responses<K>, 200 | 201 | 202 | 204>;

/**
 * What a handler returns: one of the operation's success statuses and the body the contract gives it. JSON
 * unless `contentType` names another of the response's media types (e.g. text/csv). `inPieces` names a long
 * array of the body to write one item at a time (src/http/json-in-pieces.ts); such a body is too large to keep
 * for an idempotent replay and is not checked by the response validator.
 */
export type Reply<K extends OperationId> = {
  [S in SuccessStatus<K>]: {
    status: S;
    body: BodyFor<ContentOf<Responses<K>[S]>>;
    contentType?: string;
    headers?: Record<string, string>;
    inPieces?: string;
  };
}[SuccessStatus<K>];

type BodyOf<K extends OperationId> = operations[K]['requestBody'] extends
  | { content: { 'application/json': infer B } }
  | undefined
  ? B | undefined
  : undefined;
type ParamsOf<K extends OperationId, Where extends 'path' | 'query'> =
  operations[K]['parameters'] extends Record<Where, infer P>
    ? P extends undefined
      ? Record<string, never>
      : NonNullable<P>
    : Record<string, never>;

export interface RequestContext<K extends OperationId> {
  /** Already validated against the contract (defaults applied). */
  body: BodyOf<K>;
  params: ParamsOf<K, 'path'>;
  query: ParamsOf<K, 'query'>;
  /** Null on public operations called without a key. */
  principal: Principal | null;
  requestId: string;
  deps: Deps;
  req: Request;
  res: Response;
}

/**
 * The handler wrote the response itself (a stream or the keep-alive path); nothing is left to send. `replayable`:
 * the JSON body it ended with, when a retry with the same Idempotency-Key may be answered with it.
 */
export interface Sent {
  status: 'sent';
  replayable?: unknown;
}
export const SENT: Sent = { status: 'sent' };

export type Handler<K extends OperationId> = (ctx: RequestContext<K>) => Promise<Reply<K> | Sent> | Reply<K> | Sent;

/** Exhaustive both ways: an operation without a handler, or a handler without an operation, does not compile. */
export type HandlerMap = { [K in OperationId]: Handler<K> };
