import { expect } from 'vitest';
import type { JsonResponse } from './harness.js';

/** Asserts a compat error (SPEC 2.7): the code, the status in the body, and the request id matching the header. */
export function expectCompatError(response: JsonResponse, status: number, code: string): void {
  expect(response.status, response.text).toBe(status);
  expect(response.body.error.code).toBe(code);
  expect(response.body.error).toHaveProperty('param'); // always present, a field path or null (clients read it)
  expect(response.body.status_code).toBe(status);
  expect(response.body.request_id).toMatch(/^req_/);
  expect(response.headers.get('x-request-id')).toBe(response.body.request_id);
  expect(['true', 'false']).toContain(response.headers.get('x-should-retry'));
}

/** Asserts a native error (SPEC 2.7): exception = status, data.error_code, data.meta.request_id = X-Request-ID. */
export function expectNativeError(response: JsonResponse, status: number, code: string): void {
  expect(response.status, response.text).toBe(status);
  expect(response.body.exception).toBe(status);
  expect(response.body.data.error_code).toBe(code);
  expect(typeof response.body.data.error).toBe('string');
  expect(typeof response.body.message).toBe('string');
  expect(response.body.data.meta.request_id).toMatch(/^req_/);
  expect(response.headers.get('x-request-id')).toBe(response.body.data.meta.request_id);
  expect(['true', 'false']).toContain(response.headers.get('x-should-retry'));
}

/** Asserts a native success envelope and returns its data. */
export function expectNativeOk(response: JsonResponse, status = 200): any {
  expect(response.status, response.text).toBe(status);
  expect(response.body.exception).toBe(0);
  expect(typeof response.body.message).toBe('string');
  expect(response.headers.get('x-request-id')).toMatch(/^req_/);
  return response.body.data;
}
