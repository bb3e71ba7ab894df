/**
 * Key spend limits in the billing flows (issue 26 item 6) over the real ledger, usage log and key holds, on SQLite
 * and PostgreSQL: a limited key never reserves from a lease, its key hold goes once the charge has landed or the
 * reservation was released, a job resumed by another process releases the hold its first process left, and an
 * unlimited key takes no key hold at all.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqlKeyBudgetStore } from '../../src/adapters/key-budget/sql.js';
import type { Billing } from '../../src/domain/billing/billing.js';
import type { Principal } from '../../src/domain/keys/authenticator.js';
import { ApiError } from '../../src/errors/api-error.js';
import { BILLING_BACKENDS, type BillingWorld, openBillingWorld } from '../setup/billing.js';

const START = Date.parse('2026-11-20T10:00:00Z');
const DETAILS = { model: 'gpt-5-mini', kind: 'chat' as const, endpoint: '/v1/compat/chat/completions' };

describe.each(BILLING_BACKENDS)('key spend limits in billing on $name', (backend) => {
  let w: BillingWorld;
  let billing: Billing;
  let limited: Principal;
  const held = async () =>
    (
      await new SqlKeyBudgetStore(w.db).spend({
        accountId: limited.accountId,
        keyId: limited.keyId,
        sinceMs: START,
        nowMs: w.clock.now,
      })
    ).heldMicros;
  beforeEach(async () => {
    w = await openBillingWorld(backend, START);
    billing = w.billing(60_000);
    limited = { ...(await w.principal(5)), keySpendLimit: { amountMicros: 10_000n, period: 'day' } };
  });
  afterEach(() => w.close());

  it('a limited key takes durable holds, never a lease; what lands counts, and 402 once the day is full', async () => {
    for (let i = 0; i < 3; i++) {
      const reservation = await billing.reserve(limited, `req_l${i}`, 3_000n);
      expect(reservation).toMatchObject({ lease: null, keyHeld: true, holdId: `hold:req_l${i}` });
      await billing.settle(reservation, 3_000n, DETAILS);
    }
    expect(await held()).toBe(0n);
    const refusal = await billing.reserve(limited, 'req_over', 1_001n).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(ApiError);
    expect((refusal as ApiError).code).toBe('key_spend_limit_reached');
    expect((refusal as ApiError).meta).toMatchObject({ limit_usd: 0.01, spent_usd: 0.009, period: 'day' });
    // Nothing of the refused request was held on the balance either.
    expect((await w.ledger.getBalance(limited.accountId)).heldMicros).toBe(0n);
    await billing.settle(await billing.reserve(limited, 'req_fits', 1_000n), 1_000n, DETAILS);
  });

  it('a released reservation gives its key hold back; a balance too short gives it back as well', async () => {
    const reservation = await billing.reserve(limited, 'req_r', 10_000n);
    expect(await held()).toBe(10_000n);
    await billing.release(reservation);
    expect(await held()).toBe(0n);
    const poor = { ...(await w.principal(0.001)), keySpendLimit: limited.keySpendLimit };
    await expect(billing.reserve(poor, 'req_poor', 5_000n)).rejects.toMatchObject({ code: 'insufficient_balance' });
    const budget = new SqlKeyBudgetStore(w.db);
    const left = await budget.spend({
      accountId: poor.accountId,
      keyId: poor.keyId,
      sinceMs: START,
      nowMs: w.clock.now,
    });
    expect(left.heldMicros).toBe(0n);
  });

  it('a job charged by a process that died before releasing: the next one releases the key hold', async () => {
    const first = await billing.reserve(limited, 'job_1', 8_000n, { durable: true });
    // The first process charged the hold and died before its key hold went.
    await w.ledger.settle({ holdId: first.holdId, amountMicros: 5_000n, nowMs: w.clock.now });
    expect(await held()).toBe(8_000n);
    expect(await w.billing(60_000).chargeOnce({ ...first, principal: { ...limited } }, 5_000n, DETAILS)).toBe(5_000n);
    expect(await held()).toBe(0n);
  });

  it('as busy as an unlimited key that gets a lease, a limited key still takes a hold of its own each time', async () => {
    const plain = await w.principal(5);
    const firstLeased = async (p: Principal) => {
      for (let i = 0; i < 10; i++) {
        const r = await billing.reserve(p, `req_${p.keyId}_${i}`, 100n);
        await billing.settle(r, 0n, DETAILS);
        await w.ledger.drain();
        if (r.lease !== null) return r;
        expect(r.keyHeld).toBe(p.keySpendLimit !== null);
      }
      return null;
    };
    expect(await firstLeased(plain)).toMatchObject({ keyHeld: false, holdId: expect.stringMatching(/^lease:/) });
    expect(await firstLeased(limited)).toBeNull();
    expect(await held()).toBe(0n);
    await billing.close();
  });
});
