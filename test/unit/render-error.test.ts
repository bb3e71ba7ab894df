import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors/api-error.js';
import { ERROR_CATALOG, type ErrorCode } from '../../src/errors/catalog.js';
import { type Envelope, envelopeForPath, renderError } from '../../src/errors/render.js';

describe('envelopeForPath (DESIGN.md 3)', () => {
  it.each<[string, Envelope]>([
    ['/v1/compat/models', 'compat'],
    ['/v1/compat/chat/completions', 'compat'],
    ['/v1/compat/embeddings', 'compat'],
    ['/v1/compat/', 'compat'],
    ['/v1/compat', 'compat'],
    ['/v1/compat/no-such-thing', 'compat'],
    ['/v1/responses', 'compat'],
    ['/v1/responses/resp_123', 'compat'],
    ['/v1/llm/models/catalog', 'native'],
    ['/v1/llm/api-keys', 'native'],
    ['/v1/llm/api-keys/key_1', 'native'],
    ['/healthz', 'native'],
    ['/readyz', 'native'],
    ['/', 'native'],
    ['/v1/compatible', 'native'], // a prefix of the word, not of the path segment
    ['/v1/compatibility/models', 'native'],
    ['/v1/responsesx', 'native'],
    ['/v1/llm/compat/models', 'native'],
    ['/compat/models', 'native'],
    ['/v2/compat/models', 'native'],
  ])('%s → %s', (path, envelope) => {
    expect(envelopeForPath(path)).toBe(envelope);
  });
});

describe('renderError, compat envelope (SPEC 2.7)', () => {
  it('has exactly error{message,type,code,param}, status_code and request_id when there is no meta', () => {
    const rendered = renderError('compat', new ApiError('invalid_api_key'), 'req_abc');
    expect(rendered).toEqual({
      status: 401,
      headers: { 'x-should-retry': 'false' },
      body: {
        error: {
          message: 'The API key is malformed or does not exist',
          type: 'invalid_request_error',
          code: 'invalid_api_key',
          param: null,
        },
        status_code: 401,
        request_id: 'req_abc',
      },
    });
    expect(Object.keys((rendered.body as { error: object }).error)).not.toContain('meta');
  });

  it('carries meta unchanged (no request_id inside) and a custom message', () => {
    const meta = { hint: 'use /v1/compat/embeddings', slug: 'text-embedding-3-small' };
    const rendered = renderError('compat', new ApiError('model_not_found', 'Unknown model x', { meta }), 'req_1');
    expect(rendered.body).toEqual({
      error: { message: 'Unknown model x', type: 'invalid_request_error', code: 'model_not_found', param: null, meta },
      status_code: 400,
      request_id: 'req_1',
    });
  });

  it('param: the one given, else the path of the first field finding inside its location, else null', () => {
    const given = renderError('compat', new ApiError('model_not_found', 'x', { param: 'model' }), 'req_3');
    expect(given.body).toMatchObject({ error: { param: 'model' } });
    const fields = [{ type: 'enum', loc: ['body', 'messages', 1, 'content', 0, 'type'], msg: 'x', ctx: {} }];
    expect(
      renderError('compat', new ApiError('invalid_request', 'x', { meta: { fields } }), 'req_4').body,
    ).toMatchObject({ error: { param: 'messages[1].content[0].type' } });
    const whole = [{ type: 'required', loc: ['body'], msg: 'x', ctx: {} }];
    expect(
      renderError('compat', new ApiError('invalid_request', 'x', { meta: { fields: whole } }), 'req_5').body,
    ).toMatchObject({ error: { param: null } });
  });

  it('a path resource that is missing is answered 404 with its own code', () => {
    const rendered = renderError(
      'compat',
      new ApiError('model_not_found', 'x', { param: 'model', notFound: true }),
      'req_6',
    );
    expect(rendered).toMatchObject({ status: 404, body: { error: { code: 'model_not_found' }, status_code: 404 } });
  });

  it('uses the catalog type of the code', () => {
    const rendered = renderError('compat', new ApiError('insufficient_balance'), 'req_2');
    expect(rendered.status).toBe(402);
    expect(rendered.body).toMatchObject({
      error: { type: 'insufficient_quota', code: 'insufficient_balance' },
      status_code: 402,
    });
  });
});

describe('renderError, native envelope (SPEC 2.7)', () => {
  it('has exception, data{error,error_code,meta{request_id}} and a Russian message', () => {
    const rendered = renderError('native', new ApiError('invalid_api_key'), 'req_abc');
    expect(rendered).toEqual({
      status: 401,
      headers: { 'x-should-retry': 'false' },
      body: {
        exception: 401,
        data: {
          error: 'The API key is malformed or does not exist',
          error_code: 'invalid_api_key',
          meta: { request_id: 'req_abc' },
        },
        message: 'Требуется действительный API-ключ',
      },
    });
  });

  it('merges meta with the request id', () => {
    const fields = [{ type: 'enum', loc: ['body', 'role'], msg: 'must be one of', ctx: {} }];
    const rendered = renderError(
      'native',
      new ApiError('invalid_request', 'body.role: must be one of', { meta: { fields, hint: 'h' } }),
      'req_9',
    );
    expect(rendered.body).toEqual({
      exception: 400,
      data: {
        error: 'body.role: must be one of',
        error_code: 'invalid_request',
        meta: { fields, hint: 'h', request_id: 'req_9' },
      },
      message: 'Некорректный запрос',
    });
  });

  it('the request id of the request wins over a request_id smuggled into meta', () => {
    const rendered = renderError(
      'native',
      new ApiError('internal_error', undefined, { meta: { request_id: 'forged' } }),
      'req_real',
    );
    expect((rendered.body as { data: { meta: { request_id: string } } }).data.meta.request_id).toBe('req_real');
  });

  it.each<[ErrorCode, number, string]>([
    ['invalid_request', 400, 'Некорректный запрос'],
    ['authentication_required', 401, 'Требуется действительный API-ключ'],
    ['insufficient_balance', 402, 'Недостаточно средств на балансе'],
    ['user_not_found', 404, 'Не найдено'],
    ['route_not_found', 404, 'Не найдено'],
    ['method_not_allowed', 405, 'Некорректный запрос'],
    ['request_too_large', 413, 'Некорректный запрос'],
    ['rate_limit_per_key', 429, 'Слишком много запросов, повторите позже'],
    ['internal_error', 500, 'Временная ошибка сервиса, повторите позже'],
    ['upstream_server_error', 502, 'Временная ошибка сервиса, повторите позже'],
    ['provider_unavailable', 503, 'Временная ошибка сервиса, повторите позже'],
    ['upstream_timeout', 504, 'Временная ошибка сервиса, повторите позже'],
  ])('%s → exception %i and message %s', (code, status, message) => {
    const rendered = renderError('native', new ApiError(code), 'req_x');
    expect(rendered.status).toBe(status);
    expect(rendered.body).toMatchObject({
      exception: status,
      message,
      data: { error_code: code, error: ERROR_CATALOG[code].message },
    });
  });
});

describe('renderError headers', () => {
  it.each<[ErrorCode, string]>([
    ['rate_limit_per_key', 'true'],
    ['rate_limit_per_user', 'true'],
    ['billing_temporarily_unavailable', 'true'],
    ['provider_unavailable', 'true'],
    ['upstream_timeout', 'true'],
    ['internal_error', 'true'],
    ['not_ready', 'true'],
    ['invalid_request', 'false'],
    ['invalid_api_key', 'false'],
    ['insufficient_balance', 'false'],
    ['model_disabled', 'false'],
    ['gateway_misconfigured', 'false'],
    ['upstream_bad_response', 'false'],
    ['route_not_found', 'false'],
  ])('x-should-retry for %s is %s on both envelopes', (code, retry) => {
    for (const envelope of ['compat', 'native'] as const) {
      expect(renderError(envelope, new ApiError(code), 'req_h').headers['x-should-retry']).toBe(retry);
    }
  });

  it('keeps the headers of the error (Allow, Retry-After) beside x-should-retry', () => {
    const error = new ApiError('rate_limit_per_key', undefined, {
      headers: { 'Retry-After': '7', 'X-RateLimit-Limit': '120' },
    });
    expect(renderError('compat', error, 'req_r').headers).toEqual({
      'Retry-After': '7',
      'X-RateLimit-Limit': '120',
      'x-should-retry': 'true',
    });
    const notAllowed = new ApiError('method_not_allowed', undefined, { headers: { Allow: 'GET, HEAD' } });
    expect(renderError('native', notAllowed, 'req_r').headers).toEqual({
      Allow: 'GET, HEAD',
      'x-should-retry': 'false',
    });
  });

  it('the status comes from the catalog, whatever envelope', () => {
    for (const code of Object.keys(ERROR_CATALOG) as ErrorCode[]) {
      for (const envelope of ['compat', 'native'] as const) {
        const rendered = renderError(envelope, new ApiError(code), 'req_s');
        expect(rendered.status, code).toBe(ERROR_CATALOG[code].status);
        expect(rendered.headers['x-should-retry'], code).toBe(String(ERROR_CATALOG[code].retryable));
      }
    }
  });
});
