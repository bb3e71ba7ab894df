/** What a call through packages/sdk threw, checked to be a `GatewayError` (the one error type the SDK reports). */
import { expect } from 'vitest';
import { GatewayError } from '../../packages/sdk/src/index.js';

export async function gatewayFailure(call: () => Promise<unknown>): Promise<GatewayError> {
  const error = await call().then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}
