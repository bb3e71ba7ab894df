import type { ErrorRequestHandler } from 'express';
import type { Logger } from 'pino';
import { UpstreamError } from '../adapters/upstream/index.js';
import { ApiError } from '../errors/api-error.js';
import { toApiError } from '../errors/from-unknown.js';
import { envelopeForPath, renderError } from '../errors/render.js';
import { admissionRefusal } from './rate-limit.js';

/** The one error handler: every failure leaves through here in the envelope its path calls for. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return async (failure, req, res, _next) => {
    // A rate-limit refusal still on its way wins (rate-limit.ts): the request was over its limit whatever else.
    const err: unknown = (await admissionRefusal(res)) ?? failure;
    const requestId = String(res.locals.requestId ?? '');
    if (err instanceof UpstreamError && err.failure.kind === 'aborted') {
      // The client went away before an answer: nobody is left to read an error (and nothing was charged).
      logger.debug({ requestId, path: req.path }, 'client closed the connection');
      if (!res.writableEnded) res.end();
      return;
    }
    let apiError = toApiError(err, res.locals.fieldErrorCodes);
    if (apiError === null) {
      // Not a client mistake: the stack goes to the log, the client gets a scrubbed message (SPEC 7.2).
      logger.error({ err, requestId, method: req.method, path: req.path }, 'unhandled error');
      apiError = new ApiError('internal_error');
    }
    if (res.headersSent) {
      logger.warn({ requestId, code: apiError.code }, 'error after the response started');
      res.end();
      return;
    }
    const rendered = renderError(envelopeForPath(req.path), apiError, requestId);
    res.status(rendered.status).set(rendered.headers).json(rendered.body);
  };
}
