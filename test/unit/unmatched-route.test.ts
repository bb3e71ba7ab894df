import type { NextFunction, Request, Response } from 'express';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../src/errors/api-error.js';
import { routeShape, unmatchedRoute } from '../../src/http/unmatched-route.js';

describe('routeShape', () => {
  it.each<[string, string, boolean]>([
    ['/v1/llm/api-keys', '/v1/llm/api-keys', true],
    ['/v1/llm/api-keys', '/v1/llm/api-keys/', true],
    ['/v1/llm/api-keys', '/v1/llm/api-keys//', false],
    ['/v1/llm/api-keys', '/v1/llm/api-keysx', false],
    ['/v1/llm/api-keys', '/v1/llm/api-keys/key_1', false],
    ['/v1/llm/api-keys', '/prefix/v1/llm/api-keys', false],
    ['/v1/llm/api-keys/{key_id}', '/v1/llm/api-keys/key_1', true],
    ['/v1/llm/api-keys/{key_id}', '/v1/llm/api-keys/key_1/', true],
    ['/v1/llm/api-keys/{key_id}', '/v1/llm/api-keys/', false], // a parameter is never empty
    ['/v1/llm/api-keys/{key_id}', '/v1/llm/api-keys', false],
    ['/v1/llm/api-keys/{key_id}', '/v1/llm/api-keys/a/b', false], // no match across segments
    ['/v1/jobs/{job_id}/events/{event_id}', '/v1/jobs/j1/events/e2', true],
    ['/v1/jobs/{job_id}/events/{event_id}', '/v1/jobs/j1/events', false],
    ['/v1/jobs/{job_id}/events/{event_id}', '/v1/jobs/j1/x/events/e2', false],
    ['/v1/jobs/{job_id}/events/{event_id}', '/v1/jobs/j1/events/e2/more', false],
    ['/v1/files/{name}.json', '/v1/files/a.json', true],
    ['/v1/files/{name}.json', '/v1/files/aXjson', false], // regex metacharacters are escaped
    ['/healthz', '/healthz', true],
    ['/healthz', '/healthzz', false],
  ])('%s matches %s: %s', (openApiPath, path, matches) => {
    expect(routeShape(openApiPath, ['get']).pattern.test(path)).toBe(matches);
  });

  it('upper-cases the methods', () => {
    expect(routeShape('/v1/llm/api-keys', ['get', 'post']).methods).toEqual(['GET', 'POST']);
  });
});

/** Calls the middleware with a minimal request and returns what it passed to next(). */
function run(routes: ReturnType<typeof routeShape>[], method: string, path: string): ApiError {
  const next = vi.fn((_err?: unknown) => {});
  const req = { method, path } as unknown as Request;
  void unmatchedRoute(routes)(req, {} as Response, next as unknown as NextFunction);
  expect(next).toHaveBeenCalledTimes(1);
  const err: unknown = next.mock.calls[0]?.[0];
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('unmatchedRoute', () => {
  const routes = [
    routeShape('/healthz', ['get']),
    routeShape('/v1/llm/api-keys', ['get', 'post']),
    routeShape('/v1/llm/api-keys/{key_id}', ['delete']),
    routeShape('/v1/compat/models', ['get']),
  ];

  it.each<[string, string]>([
    ['GET', '/nope'],
    ['POST', '/v1/llm/api-keys/a/b'],
    ['GET', '/v1/llm'],
  ])('%s %s → 404 route_not_found naming the method and path', (method, path) => {
    const err = run(routes, method, path);
    expect(err.code).toBe('route_not_found');
    expect(err.status).toBe(404);
    expect(err.message).toBe(`No operation at ${method} ${path}`);
    expect(err.headers).toEqual({});
  });

  it.each<[string, string, string]>([
    ['POST', '/healthz', 'GET, HEAD'],
    ['DELETE', '/v1/llm/api-keys', 'GET, POST, HEAD'],
    ['PUT', '/v1/llm/api-keys/', 'GET, POST, HEAD'],
    ['GET', '/v1/llm/api-keys/key_1', 'DELETE'], // no GET, so no HEAD either
    ['PATCH', '/v1/llm/api-keys/key_1/', 'DELETE'],
    ['POST', '/v1/compat/models', 'GET, HEAD'],
  ])('%s %s → 405 method_not_allowed with Allow: %s', (method, path, allow) => {
    const err = run(routes, method, path);
    expect(err.code).toBe('method_not_allowed');
    expect(err.status).toBe(405);
    expect(err.message).toBe(`${method} is not allowed on ${path}`);
    expect(err.headers).toEqual({ Allow: allow });
  });

  it('with no routes at all, everything is route_not_found', () => {
    expect(run([], 'GET', '/healthz').code).toBe('route_not_found');
  });
});
