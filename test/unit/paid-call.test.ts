import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../src/adapters/upstream/index.js';
import {
  chatHoldOutputTokens,
  RETRIEVAL_HOLD_COUNT_FACTOR,
  RETRIEVAL_HOLD_SPARE_TOKENS,
  retrievalHoldTokens,
} from '../../src/domain/paid-call/hold-rules.js';
import { PaidCall, runPaidCall } from '../../src/domain/paid-call/paid-call.js';
import type { Route } from '../../src/domain/routing/route-table.js';
import { ApiError } from '../../src/errors/api-error.js';
import { RecordingBilling, TEST_PRINCIPAL } from '../setup/recording-billing.js';
import { stubRoute as route } from '../setup/routes.js';

const hooks = { deadlineAtMs: Number.MAX_SAFE_INTEGER, onExhausted: () => undefined };
const terms = { principal: TEST_PRINCIPAL, requestId: 'req_1', holdFor: (tokens: number) => BigInt(tokens * 10 + 5) };

/** A one-shot call over `chain` whose attempt answers per route as scripted (a failure or the route's name). */
function oneShot(billing: RecordingBilling, chain: Route[], failing: string[] = []) {
  return runPaidCall(billing, terms, {
    count: async (floorCheck) => {
      await floorCheck();
      billing.log.push('count');
      return { tokens: 7, chain };
    },
    attempt: async (r) => {
      if (failing.includes(r.providerName)) throw new UpstreamError({ kind: 'http', status: 503, message: 'down' });
      return r.providerName;
    },
    hooks,
    bill: (answer, r, counted) => ({
      answer,
      costMicros: BigInt(counted.tokens),
      details: {
        model: 'm',
        kind: 'embedding' as const,
        endpoint: 'embeddings',
        metadata: { provider: r.providerName },
      },
    }),
  });
}

describe('the paid-call template (DESIGN.md 3 "Pre-flight"; SPEC 4.1.3, 4.2)', () => {
  it('counts after the floor check, holds the worst case of the count, then settles the actual cost', async () => {
    const billing = new RecordingBilling();
    const { value, bill, charge } = await oneShot(billing, [route('a')]);
    expect(value).toBe('a');
    expect(bill.answer).toBe('a');
    expect(charge.costMicros).toBe(7n);
    expect(billing.log).toEqual(['floor 5', 'count', 'reserve 75', 'settle 7 embedding']);
  });

  it('fails over along the chain under the same hold, settling once on the route that answered', async () => {
    const billing = new RecordingBilling();
    const { value } = await oneShot(billing, [route('a'), route('b')], ['a']);
    expect(value).toBe('b');
    expect(billing.log.filter((line) => line.startsWith('reserve') || line.startsWith('settle'))).toEqual([
      'reserve 75',
      'settle 7 embedding',
    ]);
  });

  it('releases the hold when every route failed: a failed request costs nothing (SPEC 4.6)', async () => {
    const billing = new RecordingBilling();
    await expect(oneShot(billing, [route('a'), route('b')], ['a', 'b'])).rejects.toBeInstanceOf(ApiError);
    expect(billing.log).toEqual(['floor 5', 'count', 'reserve 75', 'release hold:req_1']);
  });

  it('refuses before counting when the floor cannot be paid, and holds nothing', async () => {
    const billing = new RecordingBilling(4n);
    await expect(oneShot(billing, [route('a')])).rejects.toMatchObject({ code: 'insufficient_balance' });
    expect(billing.log).toEqual(['floor 5']);
  });

  it('refuses at the hold when the floor is covered but the counted worst case is not', async () => {
    const billing = new RecordingBilling(50n);
    await expect(oneShot(billing, [route('a')])).rejects.toMatchObject({ code: 'insufficient_balance' });
    expect(billing.log).toEqual(['floor 5', 'count', 'reserve 75']);
  });

  it('checks the floor once however many counts a request makes', async () => {
    const billing = new RecordingBilling();
    await PaidCall.hold(billing, terms, async (floorCheck) => {
      await floorCheck();
      await floorCheck();
      return { tokens: 1 };
    });
    expect(billing.log).toEqual(['floor 5', 'reserve 15']);
  });

  it('a staged call (chat) can be kept alive, settled or released on its own', async () => {
    const billing = new RecordingBilling();
    const { call } = await PaidCall.hold(billing, terms, async () => ({ tokens: 0 }));
    const stop = call.keepAlive();
    stop();
    await call.release();
    expect(billing.log).toEqual(['reserve 5', 'keep alive', 'stop keeping alive', 'release hold:req_1']);
    expect(call.reservation.amountMicros).toBe(5n);
  });
});

describe('hold rules', () => {
  it('retrieval holds twice the count plus spare tokens (SPEC 4.1.3: the upstream may count a little more)', () => {
    expect([RETRIEVAL_HOLD_COUNT_FACTOR, RETRIEVAL_HOLD_SPARE_TOKENS]).toEqual([2, 16]);
    expect(retrievalHoldTokens(0)).toBe(16);
    expect(retrievalHoldTokens(100)).toBe(216);
  });

  it('chat holds the output cap once per choice (SPEC 4.2 pre-flight worst case)', () => {
    expect(chatHoldOutputTokens(1000, undefined)).toBe(1000);
    expect(chatHoldOutputTokens(1000, 3)).toBe(3000);
  });
});
