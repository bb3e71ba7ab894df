/**
 * The Idempotency-Key behaviour every paid operation's contract test checks (the IdempotencyKey parameter):
 * the same key and body replays the first answer (`Idempotent-Replayed: true`), the key with another body is
 * 409 idempotency_conflict in the operation's envelope, and a malformed key is 400 invalid_request. Answers the
 * first response.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { expectCompatError, expectNativeError } from './envelopes.js';
import type { JsonResponse } from './harness.js';

export async function expectIdempotencyContract(
  send: (body: unknown, idempotencyKey: string) => Promise<JsonResponse>,
  bodies: { first: unknown; other: unknown },
  envelope: 'compat' | 'native',
  okStatus = 200,
): Promise<JsonResponse> {
  const expectError = envelope === 'compat' ? expectCompatError : expectNativeError;
  const key = randomUUID();
  const first = await send(bodies.first, key);
  expect(first.status, first.text).toBe(okStatus);
  const replay = await send(bodies.first, key);
  expect(replay.status).toBe(okStatus);
  expect(replay.text).toBe(first.text);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  const conflict = await send(bodies.other, key);
  expectError(conflict, 409, 'idempotency_conflict');
  expectError(await send(bodies.first, 'a key with spaces'), 400, 'invalid_request');
  return first;
}
