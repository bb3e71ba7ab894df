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

  constructor(code: ErrorCode, message?: string, options: { meta?: ErrorMeta; headers?: Record<string, string> } = {}) {
    super(message ?? ERROR_CATALOG[code].message);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_CATALOG[code].status;
    this.meta = options.meta;
    this.headers = options.headers ?? {};
  }
}
