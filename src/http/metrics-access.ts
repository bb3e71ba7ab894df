import { timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { ApiError } from '../errors/api-error.js';

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6 (`::ffff:127.0.0.1`). */
export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}

/**
 * Who may read /metrics (docs/configuration.md, METRICS_TOKEN): with a token, whoever sends it as a Bearer
 * credential; without one, loopback clients only, and to anyone else the path does not exist. The peer address
 * is the socket's, never a forwarded header a client could write.
 */
export function assertMetricsAccess(req: Request, token: string | undefined): void {
  if (token === undefined) {
    if (!isLoopback(req.socket.remoteAddress)) throw new ApiError('route_not_found');
    return;
  }
  const sent = Buffer.from(/^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '');
  const expected = Buffer.from(token);
  if (sent.length !== expected.length || !timingSafeEqual(sent, expected)) {
    throw new ApiError('authentication_required', 'Send Authorization: Bearer <METRICS_TOKEN>');
  }
}
