import { ERROR_CATALOG, type ErrorCode } from './catalog.js';

export interface FieldDiagnostic {
  type: string;
  loc: (string | number)[];
  msg: string;
  ctx: Record<string, unknown>;
}

export interface ErrorMeta {
  hint?: string;
  slug?: string;
  fields?: FieldDiagnostic[];
  [key: string]: unknown;
}

/** The only error type handlers and domain code throw; the error handler renders it in the right envelope. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly meta: ErrorMeta | undefined;
  /** Extra response headers (e.g. Retry-After, Allow). */
  readonly headers: Record<string, string>;
  /** The request field at fault (compat `error.param`): given, or the first diagnostic's, else null. */
  readonly param: string | null;

  /**
   * `notFound`: the thing the code names is the resource of the request's path (`GET /v1/compat/models/{model}`),
   * so it is answered 404, as the wire format does, instead of the catalog's status for a field of a body.
   */
  constructor(
    code: ErrorCode,
    message?: string,
    options: { meta?: ErrorMeta; headers?: Record<string, string>; param?: string; notFound?: true } = {},
  ) {
    super(message ?? ERROR_CATALOG[code].message);
    this.name = 'ApiError';
    this.code = code;
    this.status = options.notFound ? 404 : ERROR_CATALOG[code].status;
    this.meta = options.meta;
    this.headers = options.headers ?? {};
    const loc = options.meta?.fields?.[0]?.loc;
    this.param = options.param ?? (loc === undefined ? null : paramOf(loc));
  }
}

/** `['body', 'messages', 0, 'content']` → `messages[0].content`: the field's path inside its location. */
function paramOf(loc: readonly (string | number)[]): string | null {
  const path = loc
    .slice(1)
    .reduce<string>(
      (text, part) => (typeof part === 'number' ? `${text}[${part}]` : text === '' ? part : `${text}.${part}`),
      '',
    );
  return path === '' ? null : path;
}

/** A 400 invalid_request naming one field, in the same shape as the validator's findings (SPEC 2.7). */
export function invalidField(loc: (string | number)[], msg: string, type = 'invalid'): ApiError {
  return new ApiError('invalid_request', `${loc.join('.')}: ${msg}`, {
    meta: { fields: [{ type, loc, msg, ctx: {} }] },
  });
}

/** Runs a store read or write; an infrastructure failure becomes a retryable 503 instead of a 500. */
export async function orUnavailable<T>(operation: () => Promise<T>, what: string): Promise<T> {
  try {
    return await operation();
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError('not_ready', `The ${what} is unreachable`);
  }
}
