/** Who may read /metrics (src/http/metrics-access.ts): the peer's socket address, or the METRICS_TOKEN. */
import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors/api-error.js';
import { assertMetricsAccess, isLoopback } from '../../src/http/metrics-access.js';

const request = (remoteAddress: string | undefined, headers: Record<string, string> = {}) =>
  ({ socket: { remoteAddress }, headers }) as unknown as Request;
const codeOf = (run: () => void): string | null => {
  try {
    run();
    return null;
  } catch (err) {
    return err instanceof ApiError ? err.code : 'not an ApiError';
  }
};

describe('metrics access', () => {
  it('loopback: 127.0.0.0/8, ::1 and their IPv4-mapped form; nothing else', () => {
    for (const address of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) expect(isLoopback(address)).toBe(true);
    for (const address of ['10.0.0.5', '::ffff:10.0.0.5', '192.168.1.127', 'fe80::1', undefined])
      expect(isLoopback(address)).toBe(false);
  });

  it('without a token: loopback peers pass; any other address finds no such path, whatever it claims in headers', () => {
    expect(codeOf(() => assertMetricsAccess(request('127.0.0.1'), undefined))).toBeNull();
    expect(codeOf(() => assertMetricsAccess(request('10.0.0.5', { 'x-forwarded-for': '127.0.0.1' }), undefined))).toBe(
      'route_not_found',
    );
  });

  it('with a token: only its exact Bearer form passes, from any address', () => {
    const token = 'metrics-token-0123456789';
    expect(
      codeOf(() => assertMetricsAccess(request('10.0.0.5', { authorization: `Bearer ${token}` }), token)),
    ).toBeNull();
    for (const authorization of [undefined, token, `Bearer ${token.slice(1)}`, `Bearer ${token} `, 'Bearer '])
      expect(
        codeOf(() =>
          assertMetricsAccess(request('127.0.0.1', authorization === undefined ? {} : { authorization }), token),
        ),
      ).toBe('authentication_required');
  });
});
