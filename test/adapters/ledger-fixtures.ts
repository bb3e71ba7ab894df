/** What the ledger conformance case files share: fixed times and rates, a usage line, and outcome helpers. */
import { expect } from 'vitest';
import type { Allocation, Micros, UsageLine } from '../../src/adapters/ledger/index.js';
import { newId } from '../../src/lib/ids.js';

export const T0 = 1_750_000_000_000; // above 2^31: a 32-bit column or an unconverted BigInt would show
export const DAY = new Date(T0).toISOString().slice(0, 10);
export const YEAR_MS = 365 * 24 * 3600 * 1000;
export const RUB_90 = 90_000_000n;
export const RUB_100 = 100_000_000n;

export function line(over: Partial<UsageLine> = {}): UsageLine {
  return {
    id: newId('log'),
    keyId: 'key_fixture',
    requestId: newId('req'),
    model: 'acme/chat-1',
    kind: 'chat',
    endpoint: '/v1/compat/chat/completions',
    promptTokens: 12,
    completionTokens: 30,
    cachedTokens: 0,
    reasoningTokens: 0,
    totalTokens: 42,
    billedInRub: false,
    createdAtMs: T0 + 10,
    durationMs: 7,
    metadata: { provider: 'fake' },
    ...over,
  };
}

/** The outcome, asserted successful (its JSON shown when it is not). */
export function ok<T extends { ok: boolean }>(outcome: T): Extract<T, { ok: true }> {
  expect(
    outcome.ok,
    JSON.stringify(outcome, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)),
  ).toBe(true);
  return outcome as Extract<T, { ok: true }>;
}

export const alloc = (lotId: string, amountMicros: Micros, fxRateRubMicro: bigint): Allocation => ({
  lotId,
  amountMicros,
  fxRateRubMicro,
});
