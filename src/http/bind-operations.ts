import express, { type Express, type RequestHandler, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { OpenAPIV3 } from 'express-openapi-validator/dist/framework/types.js';
import type { Deps } from '../composition/index.js';
import type { ResponseValidation } from '../config.js';
import { authenticateSession } from '../domain/accounts/sessions.js';
import type { Ending } from '../domain/billing/idempotency.js';
import { isRecord } from '../lib/is-record.js';
import { type AuthRule, authenticate, type Credentials } from './auth.js';
import { contractForPath } from './contract-slice.js';
import { contractViolationReporter } from './contract-violations.js';
import { refuseDeepJson } from './json-depth.js';
import { writeJsonInPieces } from './json-in-pieces.js';
import type { HandlerMap, OperationId, RequestContext, Sent } from './operation-types.js';
import { rateLimit } from './rate-limit.js';
import { keepRawBody } from './raw-body.js';
import { type RouteShape, routeShape } from './unmatched-route.js';

type ViolationReporter = ReturnType<typeof contractViolationReporter>;

/** A handler's reply seen from here, whatever its operation: a body to send, or what it wrote itself. */
type AnyReply =
  | { status: number; body: unknown; contentType?: string; headers?: Record<string, string>; inPieces?: string }
  | Sent;

import type { FieldErrorCodes } from '../errors/from-unknown.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
type Method = (typeof METHODS)[number];

type OperationObject = OpenAPIV3.OperationObject & {
  operationId: OperationId;
  'x-error-codes'?: FieldErrorCodes;
  'x-idempotent'?: boolean;
  /** openapi/README.md "Idempotency": what the operation creates that outlives the request (a job, a rental, ...). */
  'x-idempotent-creates'?: string;
  /** openapi/README.md "Body caps": below BODY_LIMIT_BYTES for operations whose bodies are small. */
  'x-max-body-bytes'?: number;
  /** The handler needs the body's exact bytes (a webhook's signature covers them): src/http/raw-body.ts. */
  'x-raw-body'?: boolean;
};

/** Lets the error handler answer a failing field with the code the operation's `x-error-codes` names. */
function fieldCodes(codes: FieldErrorCodes | undefined): RequestHandler {
  return (_req, res, next) => {
    res.locals.fieldErrorCodes = codes;
    next();
  };
}

const KEY_SCHEMES = ['BearerAuth', 'ApiKeyHeader'];
const SESSION_SCHEMES = ['SessionBearer', 'SessionCookie'];

function authRuleOf(security: OpenAPIV3.SecurityRequirementObject[] | undefined): AuthRule {
  const alternatives = security ?? [];
  const names = alternatives.flatMap((alternative) => Object.keys(alternative));
  const mode =
    alternatives.length === 0
      ? 'none'
      : alternatives.some((alternative) => Object.keys(alternative).length === 0)
        ? 'optional'
        : 'required';
  return {
    mode,
    keys: names.some((name) => KEY_SCHEMES.includes(name)),
    sessions: names.some((name) => SESSION_SCHEMES.includes(name)),
  };
}

/** `{key_id}` → `:key_id` (express 5 path syntax). */
function toExpressPath(openApiPath: string): string {
  return openApiPath.replace(/\{([^}]+)\}/g, ':$1');
}

/**
 * A validator per path, fed a copy of the contract that holds only that path. express has already matched
 * the route, and express-openapi-validator looks the route up again by trying every path of its document on
 * every request, so a one-path document keeps that lookup O(1) however large the contract grows.
 */
function validatorFor(
  spec: OpenAPIV3.DocumentV3_1,
  path: string,
  responses: ResponseValidation,
  onViolation: ViolationReporter,
): RequestHandler[] {
  return OpenApiValidator.middleware({
    apiSpec: contractForPath(spec, path) as unknown as OpenAPIV3.DocumentV3,
    // No type coercion of bodies: `"name": 7` is a client mistake, not a string (parameters are always coerced).
    validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false },
    validateResponses:
      responses === 'off'
        ? false
        : { removeAdditional: false, ...(responses === 'report' ? { onError: onViolation } : {}) },
    validateSecurity: false,
    // The contract is linted against the OpenAPI schema by `make lint` (redocly), not again for each slice.
    validateApiSpec: false,
    // The path as routed (req.url), which model-id-path.ts may have rewritten, not the one received.
    useRequestUrl: true,
    // 'full': a date must exist (2025-13-01 is refused), not only look like one.
    validateFormats: true,
    ajvFormats: { mode: 'full' },
  }) as RequestHandler[];
}

/**
 * A path's validator, built on its first request or when warmed. Each one compiles its slice of the contract (tens
 * of milliseconds, with the meta-schema express-openapi-validator compiles whatever it is told), so building them all
 * before serving made every start, and every test's server, cost seconds for paths it may never serve.
 */
function builtOnFirstUse(build: () => RequestHandler[]): { handler: RequestHandler; warm: () => void } {
  let chain: RequestHandler[] | undefined;
  const warm = (): void => {
    chain ??= build();
  };
  const handler: RequestHandler = (req, res, next) => {
    warm();
    const steps = chain!;
    let index = 0;
    const step = (err?: unknown): void => {
      if (err !== undefined && err !== null) return next(err);
      if (index === steps.length) return next();
      void steps[index++]!(req, res, step);
    };
    step();
  };
  return { handler, warm };
}

/**
 * Registers every operation of the contract: auth (from its `security`) → rate limit sent → body read (capped)
 * → request validation → rate limit answered → its handler. The body is read only for a matched operation and a
 * caller who may call it: a 404, 405 or 401 never waits for a body.
 * Returns the route shapes so unmatched requests can tell 404 from 405.
 */
export function bindOperations(
  app: Express,
  spec: OpenAPIV3.DocumentV3_1,
  handlers: HandlerMap,
  deps: Deps,
  options: { warmTags: ReadonlySet<string> },
): RouteShape[] {
  const shapes: RouteShape[] = [];
  const warmers: (() => void)[] = [];
  const reportViolation = contractViolationReporter(deps.logger, deps.metrics);
  const credentials: Credentials = {
    keys: deps.authenticator,
    sessions: (accessToken, address) => authenticateSession(deps.auth, accessToken, address ?? ''),
    publicBaseUrl: deps.config.PUBLIC_BASE_URL,
  };
  const limit = rateLimit(
    deps.rateLimiter,
    {
      perKeyPerMinute: deps.config.RATE_LIMIT_PER_KEY_PER_MINUTE,
      perAccountPerMinute: deps.config.RATE_LIMIT_PER_ACCOUNT_PER_MINUTE,
    },
    deps.now,
  );
  // One parser per cap; an operation without a requestBody gets none (its body, if any, is discarded unread).
  const parsers = new Map<string, RequestHandler>();
  const bodyParser = (operation: OperationObject): RequestHandler[] => {
    if (operation.requestBody === undefined) return [];
    const cap = Math.min(operation['x-max-body-bytes'] ?? Number.POSITIVE_INFINITY, deps.config.BODY_LIMIT_BYTES);
    const raw = operation['x-raw-body'] === true;
    const key = `${cap}${raw ? ':raw' : ''}`;
    if (!parsers.has(key)) {
      const verify: typeof refuseDeepJson = (req, res, body, encoding) => {
        refuseDeepJson(req, res, body, encoding);
        if (raw) keepRawBody(req, res, body);
      };
      parsers.set(key, express.json({ limit: cap, strict: false, verify }));
    }
    return [parsers.get(key)!];
  };
  for (const [path, item] of Object.entries(spec.paths ?? {})) {
    if (item === undefined) continue;
    const { handler: validator, warm } = builtOnFirstUse(() =>
      validatorFor(spec, path, deps.config.VALIDATE_RESPONSES, reportViolation),
    );
    const methods = METHODS.filter((m) => (item as Record<Method, unknown>)[m] !== undefined);
    const tags = methods.flatMap((m) => (item as Record<Method, OperationObject>)[m].tags ?? []);
    if (tags.some((tag) => options.warmTags.has(tag))) warmers.push(warm);
    for (const method of methods) {
      const operation = (item as Record<Method, OperationObject>)[method];
      const rule = authRuleOf(operation.security ?? spec.security);
      const guarded = rule.mode !== 'none';
      const codes = operation['x-error-codes'] === undefined ? [] : [fieldCodes(operation['x-error-codes'])];
      const before = guarded ? [authenticate(rule, credentials), limit.start] : [];
      const after = guarded ? [limit.admitted] : [];
      app[method](
        toExpressPath(path),
        ...before,
        ...bodyParser(operation),
        ...codes,
        validator,
        ...after,
        runHandler(operation, handlers, deps),
      );
    }
    shapes.push(routeShape(path, methods));
  }
  for (const warm of warmers) warm();
  return shapes;
}

function runHandler(operation: OperationObject, handlers: HandlerMap, deps: Deps): RequestHandler {
  const { operationId } = operation;
  const handler = handlers[operationId] as (ctx: RequestContext<OperationId>) => Promise<AnyReply> | AnyReply;
  const idempotent = operation['x-idempotent'] === true;
  const creates = operation['x-idempotent-creates'] ?? null;
  return async (req, res) => {
    const ctx = {
      body: req.body,
      params: req.params,
      query: req.query,
      principal: res.locals.principal ?? null,
      requestId: res.locals.requestId,
      deps,
      req,
      res,
    } as RequestContext<OperationId>;
    const key = idempotent ? req.get('idempotency-key') : undefined;
    if (key === undefined || ctx.principal === null) return send(res, await handler(ctx));
    const stream = isRecord(req.body) && req.body.stream === true;
    const begun = await deps.idempotency.begin({
      accountId: ctx.principal.accountId,
      key,
      operationId,
      params: req.params as Record<string, string>,
      body: req.body,
      requestId: ctx.requestId,
      stream,
      creates,
    });
    if (!begun.run) {
      res.status(begun.statusCode).set('Idempotent-Replayed', 'true').type('application/json').send(begun.body);
      return;
    }
    let reply: AnyReply;
    try {
      reply = await handler(ctx);
    } catch (err) {
      await begun
        .finish('failed')
        .catch((storeErr: unknown) => deps.logger.warn({ err: storeErr, key }, 'idempotency key not released'));
      throw err;
    }
    // Kept before the response goes out (Stripe does so): a retry after a lost answer then finds it.
    await begun
      .finish(endingOf(reply, stream))
      .catch((storeErr: unknown) => deps.logger.warn({ err: storeErr, key }, 'idempotent response not kept'));
    await send(res, reply);
  };
}

/**
 * What a key keeps of a reply: its body, that it succeeded (a body written in pieces is too large to keep), a
 * stream (never replayed), or nothing (a keep-alive answer that failed).
 */
function endingOf(reply: AnyReply, stream: boolean): Ending {
  if (reply.status !== 'sent')
    return reply.inPieces === undefined
      ? { statusCode: reply.status, body: reply.body }
      : { statusCode: reply.status, tooLargeToKeep: true };
  if (stream) return 'streamed';
  return reply.replayable === undefined ? 'failed' : { statusCode: 200, body: reply.replayable };
}

async function send(res: Response, reply: AnyReply): Promise<void> {
  if (reply.status === 'sent') return;
  if (reply.headers !== undefined) res.set(reply.headers);
  if (reply.inPieces !== undefined)
    await writeJsonInPieces(res, reply.status, reply.body as Record<string, unknown>, reply.inPieces);
  else if (reply.contentType === undefined) res.status(reply.status).json(reply.body);
  else res.status(reply.status).type(reply.contentType).send(reply.body);
}
