import { expect } from 'vitest';
import { UpstreamError, type UpstreamFailure } from '../../src/adapters/upstream/index.js';

/** The UpstreamFailure a promise rejects with, or null when it resolves (and proof that a rejection is an UpstreamError). */
export async function failureOrNull(promise: Promise<unknown>): Promise<UpstreamFailure | null> {
  return promise.then(
    () => null,
    (error: unknown) => {
      expect(error).toBeInstanceOf(UpstreamError);
      return (error as UpstreamError).failure;
    },
  );
}

/** The UpstreamFailure a promise rejects with; fails the test when it resolves. */
export async function failureOf(promise: Promise<unknown>): Promise<UpstreamFailure> {
  const failure = await failureOrNull(promise);
  expect(failure, 'the call failed').not.toBeNull();
  return failure!;
}
