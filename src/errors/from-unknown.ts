import { ApiError, type FieldDiagnostic, invalidField } from './api-error.js';
import type { ErrorCode } from './catalog.js';
import { DomainError, type DomainErrorCode } from './domain-error.js';

interface ValidatorErrorItem {
  path?: string;
  message?: string;
  errorCode?: string;
  params?: Record<string, unknown>;
}

interface HttpishError {
  status?: number;
  statusCode?: number;
  type?: string;
  errors?: ValidatorErrorItem[];
  message?: string;
  headers?: Record<string, string>;
}

/** Business outcomes of the domain, as the HTTP surface names them. */
const DOMAIN_CODES: Record<DomainErrorCode, ErrorCode> = {
  email_taken: 'invalid_request',
  invalid_email: 'invalid_email',
  invalid_discount: 'invalid_request',
  // Only reachable for an authenticated caller whose account vanished mid-request.
  account_not_found: 'user_not_found',
  api_key_not_found: 'api_key_not_found',
  invalid_amount: 'invalid_request',
  machine_not_found: 'machine_not_found',
};

/** Where a finding was sent, in the words of SPEC 2.7's `loc` (body, query, path, header). */
const LOCATION_NAMES: Record<string, string> = {
  body: 'body',
  query: 'query',
  params: 'path',
  path: 'path',
  headers: 'header',
};

/** express-openapi-validator's `{path: '/body/messages/0/role', message, errorCode: 'enum.openapi.validation'}` → a diagnostic. */
export function toFieldDiagnostic(item: ValidatorErrorItem): FieldDiagnostic {
  // The validator's paths are JSON pointers: `~1` stands for `/` and `~0` for `~` inside a name.
  const segments = (item.path ?? '')
    .split('/')
    .filter((s) => s.length > 0)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const [where = 'body', ...rest] = segments;
  const loc: (string | number)[] = [
    LOCATION_NAMES[where] ?? where,
    ...rest.map((s) => (/^\d+$/.test(s) ? Number(s) : s)),
  ];
  return {
    type: (item.errorCode ?? 'invalid').split('.')[0] ?? 'invalid',
    loc,
    msg: item.message ?? 'is invalid',
    ctx: item.params ?? {},
  };
}

/** An operation's `x-error-codes`: JSON pointer (indices as `*`, optionally `@keyword`) → the code it answers. */
export type FieldErrorCodes = Readonly<Record<string, ErrorCode>>;

/**
 * The code the failing fields answer (SPEC 2.7, 7.2): the first keyword-specific entry of `x-error-codes`
 * (`/body/input@minItems`) that any finding matches exactly; then the first plain entry (`/body/temperature`)
 * of any finding's pointer or its parents; `invalid_request` when none. A schema with `oneOf` reports one finding
 * per branch, so every finding is looked at, not only the first.
 */
function codeForFields(items: readonly ValidatorErrorItem[], codes: FieldErrorCodes | undefined): ErrorCode {
  if (codes === undefined) return 'invalid_request';
  const pointers = items.map((item) => {
    const segments = (item.path ?? '').split('/').map((s) => (/^\d+$/.test(s) ? '*' : s));
    const chain: string[] = [];
    for (let end = segments.length; end > 2; end--) chain.push(segments.slice(0, end).join('/'));
    return { keyword: (item.errorCode ?? '').split('.')[0], chain };
  });
  for (const { keyword, chain } of pointers) {
    // A keyword entry names that exact field: `/body/messages@required` is about `messages` itself, not a
    // `role` missing inside one of them.
    const exact = chain[0] === undefined ? undefined : codes[`${chain[0]}@${keyword}`];
    if (exact !== undefined) return exact;
  }
  for (const { chain } of pointers) {
    for (const pointer of chain) if (codes[pointer] !== undefined) return codes[pointer]!;
  }
  return 'invalid_request';
}

function validationError(items: ValidatorErrorItem[], codes: FieldErrorCodes | undefined): ApiError {
  const fields = items.map(toFieldDiagnostic);
  // SPEC 2.7: `data.error` reads `body.<field>: <message>`.
  const message = fields.map((f) => `${f.loc.join('.')}: ${f.msg}`).join('; ') || 'The request is invalid';
  const code = codeForFields(items, codes);
  // SPEC 7.2, 7.4: upstream_validation_error says in `meta.hint` which field to fix (2.11: an over-long prompt).
  const hint =
    code === 'upstream_validation_error' && fields[0] !== undefined
      ? { hint: `fix ${fields[0].loc.slice(1).join('.')}: it ${fields[0].msg}` }
      : {};
  return new ApiError(code, message, { meta: { fields, ...hint } });
}

/**
 * Maps whatever reached the error handler onto the catalog. Returns null for errors that are not a client
 * mistake the stack knows about: the caller logs those and answers `internal_error`.
 */
export function toApiError(err: unknown, fieldCodes?: FieldErrorCodes): ApiError | null {
  if (err instanceof ApiError) return err;
  if (err instanceof DomainError) return new ApiError(DOMAIN_CODES[err.code], err.message);
  if (typeof err !== 'object' || err === null) return null;
  const e = err as HttpishError;
  // body-parser (express.json)
  if (e.type === 'entity.too.large') return new ApiError('request_too_large');
  if (e.type === 'entity.parse.failed')
    return new ApiError('invalid_request', 'body: the request body is not valid JSON');
  if (e.type === 'entity.too.deep') return invalidField(['body'], e.message ?? 'nested too deep', 'too_deep');
  if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported')
    return new ApiError('unsupported_media_type', e.message);
  if (e.type === 'request.aborted') return new ApiError('invalid_request', 'The request body ended early');
  // express-openapi-validator
  const status = e.status ?? e.statusCode;
  if (!Array.isArray(e.errors) || status === undefined) return null;
  if (e.errors.some((item) => item.path?.startsWith('/response'))) return null; // a contract breach of ours
  switch (status) {
    case 400:
      return validationError(e.errors, fieldCodes);
    case 404:
      return new ApiError('route_not_found');
    case 405:
      return new ApiError('method_not_allowed', undefined, { headers: e.headers ?? {} });
    case 413:
      return new ApiError('request_too_large');
    case 415:
      return new ApiError('unsupported_media_type');
    default:
      return null;
  }
}
