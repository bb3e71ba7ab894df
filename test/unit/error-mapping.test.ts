import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors/api-error.js';
import { ERROR_CATALOG, type ErrorCode } from '../../src/errors/catalog.js';
import { DomainError, type DomainErrorCode } from '../../src/errors/domain-error.js';
import { toApiError, toFieldDiagnostic } from '../../src/errors/from-unknown.js';

/** What express.json (body-parser) passes to next(). */
function bodyParserError(type: string, status: number, message = 'boom'): Error {
  return Object.assign(new Error(message), { type, status, statusCode: status, expose: true });
}

/** express-openapi-validator's HttpError shape. */
function validatorError(
  status: number,
  errors: { path?: string; message?: string; errorCode?: string; params?: Record<string, unknown> }[],
  headers?: Record<string, string>,
) {
  return Object.assign(new Error('validator'), {
    status,
    errors,
    path: errors[0]?.path,
    ...(headers ? { headers } : {}),
  });
}

function mapped(err: unknown): ApiError {
  const result = toApiError(err);
  expect(result).toBeInstanceOf(ApiError);
  return result as ApiError;
}

describe('toApiError: body-parser errors', () => {
  it.each<[string, number, ErrorCode, number]>([
    ['entity.too.large', 413, 'request_too_large', 413],
    ['entity.parse.failed', 400, 'invalid_request', 400],
    ['charset.unsupported', 415, 'unsupported_media_type', 415],
    ['encoding.unsupported', 415, 'unsupported_media_type', 415],
    ['request.aborted', 400, 'invalid_request', 400],
  ])('%s → %s (%i)', (type, status, code, httpStatus) => {
    const error = mapped(bodyParserError(type, status));
    expect(error.code).toBe(code);
    expect(error.status).toBe(httpStatus);
  });

  it('a parse failure says the body is not JSON, without echoing the parser text', () => {
    const error = mapped(bodyParserError('entity.parse.failed', 400, 'Unexpected token } in JSON at position 12'));
    expect(error.message).toBe('body: the request body is not valid JSON');
  });

  it('a too-large body uses the catalog text', () => {
    expect(mapped(bodyParserError('entity.too.large', 413)).message).toBe(ERROR_CATALOG.request_too_large.message);
  });
});

describe('toFieldDiagnostic', () => {
  it.each<[string, (string | number)[]]>([
    ['/body/messages/0/role', ['body', 'messages', 0, 'role']],
    ['/body/model', ['body', 'model']],
    ['/body', ['body']],
    ['/query/x', ['query', 'x']],
    ['/query/limit', ['query', 'limit']],
    ['/params/id', ['path', 'id']],
    ['/path/key_id', ['path', 'key_id']],
    ['/headers/x-api-key', ['header', 'x-api-key']],
    ['/body/input/12/3', ['body', 'input', 12, 3]],
    ['/body/a1/1a', ['body', 'a1', '1a']],
  ])('%s → loc %j', (path, loc) => {
    expect(toFieldDiagnostic({ path, message: 'm', errorCode: 'type.openapi.validation' }).loc).toEqual(loc);
  });

  it('takes the type from the first part of errorCode, ctx from params', () => {
    expect(
      toFieldDiagnostic({
        path: '/body/n',
        message: 'must be <= 2',
        errorCode: 'maximum.openapi.validation',
        params: { limit: 2 },
      }),
    ).toEqual({
      type: 'maximum',
      loc: ['body', 'n'],
      msg: 'must be <= 2',
      ctx: { limit: 2 },
    });
  });

  it('fills in defaults when the item is bare', () => {
    expect(toFieldDiagnostic({})).toEqual({ type: 'invalid', loc: ['body'], msg: 'is invalid', ctx: {} });
  });

  // ajv's instancePath is a JSON pointer: a property name containing "/" or "~" arrives as "~1" / "~0".
  it('unescapes JSON-pointer segments (~1 → /, ~0 → ~)', () => {
    expect(toFieldDiagnostic({ path: '/body/pricing/1024~11024/a~0b', message: 'm' }).loc).toEqual([
      'body',
      'pricing',
      '1024/1024',
      'a~b',
    ]);
  });
});

describe('toApiError: express-openapi-validator errors', () => {
  it('400 enum finding → invalid_request with meta.fields and "body.<field>: <message>"', () => {
    const msg = 'must be equal to one of the allowed values: system, user, assistant, tool';
    const error = mapped(
      validatorError(400, [{ path: '/body/messages/0/role', message: msg, errorCode: 'enum.openapi.validation' }]),
    );
    expect(error.code).toBe('invalid_request');
    expect(error.status).toBe(400);
    expect(error.message).toBe(`body.messages.0.role: ${msg}`);
    expect(error.meta).toEqual({ fields: [{ type: 'enum', loc: ['body', 'messages', 0, 'role'], msg, ctx: {} }] });
  });

  it('several findings are listed in order and joined with "; "', () => {
    const error = mapped(
      validatorError(400, [
        {
          path: '/body/model',
          message: "must have required property 'model'",
          errorCode: 'required.openapi.validation',
        },
        { path: '/query/x', message: 'must be integer', errorCode: 'type.openapi.validation' },
        { path: '/params/id', message: 'must match pattern', errorCode: 'pattern.openapi.validation' },
      ]),
    );
    expect(error.message).toBe(
      "body.model: must have required property 'model'; query.x: must be integer; path.id: must match pattern",
    );
    expect(error.meta?.fields?.map((f) => [f.type, f.loc])).toEqual([
      ['required', ['body', 'model']],
      ['type', ['query', 'x']],
      ['pattern', ['path', 'id']],
    ]);
  });

  it('a 400 with an empty list still answers invalid_request with the catalog text', () => {
    const error = mapped(validatorError(400, []));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toBe('The request is invalid');
    expect(error.meta).toEqual({ fields: [] });
  });

  it('reads statusCode when status is absent', () => {
    const error = mapped({
      statusCode: 400,
      errors: [{ path: '/body/a', message: 'bad', errorCode: 'type.openapi.validation' }],
    });
    expect(error.code).toBe('invalid_request');
    expect(error.message).toBe('body.a: bad');
  });

  it.each<[number, ErrorCode]>([
    [404, 'route_not_found'],
    [405, 'method_not_allowed'],
    [413, 'request_too_large'],
    [415, 'unsupported_media_type'],
  ])('status %i → %s', (status, code) => {
    const error = mapped(validatorError(status, [{ path: '/v1/llm/api-keys', message: 'x' }]));
    expect(error.code).toBe(code);
    expect(error.status).toBe(status);
    expect(error.message).toBe(ERROR_CATALOG[code].message);
  });

  it('405 keeps the Allow header of the validator', () => {
    const error = mapped(
      validatorError(405, [{ path: '/v1/llm/api-keys', message: 'POST method not allowed' }], { Allow: 'GET, POST' }),
    );
    expect(error.headers).toEqual({ Allow: 'GET, POST' });
    expect(mapped(validatorError(405, [{ path: '/v1/x', message: 'no' }])).headers).toEqual({});
  });

  it.each([
    [
      'a response-body finding',
      validatorError(500, [
        { path: '/response/data/models/0/slug', message: 'must be string', errorCode: 'type.openapi.validation' },
      ]),
    ],
    ['a response finding with status 400', validatorError(400, [{ path: '/response', message: 'no schema' }])],
    [
      'a response finding among request findings',
      validatorError(400, [
        { path: '/body/a', message: 'x' },
        { path: '/response/b', message: 'y' },
      ]),
    ],
    ['an unknown status', validatorError(418, [{ path: '/body/a', message: 'x' }])],
    ['a 401 from the validator', validatorError(401, [{ path: '/v1/llm/api-keys', message: 'x' }])],
    ['errors without a status', { errors: [{ path: '/body/a', message: 'x' }] }],
    ['a status without errors', { status: 400, message: 'bad' }],
    ['errors that are not an array', { status: 400, errors: 'nope' }],
    ['a plain Error', new Error('kaboom')],
    ['an empty object', {}],
    ['null', null],
    ['undefined', undefined],
    ['a string', 'entity.too.large'],
    ['a number', 413],
    ['an unknown body-parser type', bodyParserError('stream.encoding.set', 500)],
  ])('%s → null (the caller answers internal_error)', (_label, err) => {
    expect(toApiError(err)).toBeNull();
  });
});

describe('toApiError: ApiError and DomainError', () => {
  it('passes an ApiError through as the same object', () => {
    const error = new ApiError('job_not_found', 'gone', { meta: { slug: 'x' } });
    expect(toApiError(error)).toBe(error);
  });

  it.each<[DomainErrorCode, ErrorCode, number]>([
    ['email_taken', 'invalid_request', 400],
    ['invalid_email', 'invalid_email', 400],
    ['invalid_discount', 'invalid_request', 400],
    ['account_not_found', 'user_not_found', 404],
    ['api_key_not_found', 'api_key_not_found', 404],
  ])('DomainError %s → %s (%i), keeping its message', (domainCode, code, status) => {
    const error = mapped(new DomainError(domainCode, `details of ${domainCode}`));
    expect(error.code).toBe(code);
    expect(error.status).toBe(status);
    expect(error.message).toBe(`details of ${domainCode}`);
  });
});

describe('ERROR_CATALOG against SPEC 7.2 and DESIGN.md 3', () => {
  it.each<[ErrorCode, number, string]>([
    ['insufficient_balance', 402, 'insufficient_quota'],
    ['billing_temporarily_unavailable', 503, 'api_error'],
    ['authentication_required', 401, 'invalid_request_error'],
    ['invalid_api_key', 401, 'invalid_request_error'],
    ['api_key_revoked', 401, 'invalid_request_error'],
    ['user_not_found', 404, 'invalid_request_error'],
    ['rate_limit_per_key', 429, 'rate_limit_exceeded'],
    ['rate_limit_per_user', 429, 'rate_limit_exceeded'],
    ['model_not_found', 400, 'invalid_request_error'],
    ['model_disabled', 503, 'api_error'],
    ['request_too_large', 413, 'invalid_request_error'],
    ['context_window_exceeded', 400, 'context_length_exceeded'],
    ['invalid_request', 400, 'invalid_request_error'],
    ['content_filter', 400, 'content_filter'],
    ['empty_upstream_stream', 200, 'api_error'],
    ['provider_unavailable', 503, 'api_error'],
    ['no_provider_available', 400, 'invalid_request_error'],
    ['no_streaming_upstream', 503, 'api_error'],
    ['upstream_timeout', 504, 'timeout_error'],
    ['render_timeout', 504, 'timeout_error'],
    ['upstream_rate_limit', 429, 'rate_limit_exceeded'],
    ['upstream_bad_response', 502, 'api_error'],
    ['upstream_validation_error', 400, 'invalid_request_error'],
    ['upstream_server_error', 502, 'api_error'],
    ['gateway_misconfigured', 503, 'api_error'],
    ['job_not_found', 404, 'invalid_request_error'],
    ['internal_error', 500, 'api_error'],
    // DESIGN.md 3 service additions
    ['route_not_found', 404, 'invalid_request_error'],
    ['method_not_allowed', 405, 'invalid_request_error'],
    ['rental_unavailable', 410, 'invalid_request_error'],
    ['resources_unavailable', 409, 'invalid_request_error'],
    ['idempotency_conflict', 409, 'invalid_request_error'],
  ])('%s is %i %s', (code, status, type) => {
    expect(ERROR_CATALOG[code].status).toBe(status);
    expect(ERROR_CATALOG[code].type).toBe(type);
    expect(new ApiError(code).status).toBe(status);
  });

  it('every 429 and 503 is retryable, except model_disabled and gateway_misconfigured (retrying does not help)', () => {
    const transient = (Object.keys(ERROR_CATALOG) as ErrorCode[]).filter((code) =>
      [429, 503].includes(ERROR_CATALOG[code].status),
    );
    expect(transient.length).toBeGreaterThanOrEqual(8);
    for (const code of transient) {
      expect(ERROR_CATALOG[code].retryable, code).toBe(code !== 'model_disabled' && code !== 'gateway_misconfigured');
    }
  });

  it('no plain 4xx other than 429 is retryable (repeating the same request cannot succeed)', () => {
    for (const [code, spec] of Object.entries(ERROR_CATALOG)) {
      if (spec.status >= 400 && spec.status < 500 && spec.status !== 429) expect(spec.retryable, code).toBe(false);
    }
  });

  it('every entry has a non-empty default message', () => {
    for (const [code, spec] of Object.entries(ERROR_CATALOG))
      expect(spec.message.trim().length, code).toBeGreaterThan(0);
  });
});
