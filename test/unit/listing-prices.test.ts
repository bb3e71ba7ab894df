/** A listing's prices (docs/marketplace.md): the floor never makes a plan free; a rise waits its notice, a cut does not. */
import { describe, expect, it } from 'vitest';
import type { MachineRecord } from '../../src/adapters/market-store/index.js';
import { usdToMicros } from '../../src/domain/billing/money.js';
import { raisesAnyPlan, repriced, requireWithinCap } from '../../src/domain/market/listing-prices.js';
import { dueAtStart, isTermPlan, PRICING_TYPES, UNIT_MS, unitPriceMicros } from '../../src/domain/market/plans.js';
import { ApiError } from '../../src/errors/api-error.js';

const FLOOR = usdToMicros(0.01); // MachineListing.price_per_gpu_hour_usd's minimum
const NOTICE_MS = 600_000;
const NOW = 1_750_000_000_000;

const listing = (
  usd: number,
  discountsBp = { day: 1000, week: 2000, month: 3000 },
  priceRise: MachineRecord['priceRise'] = null,
) => ({ id: 'mch_x', pricePerGpuHourMicros: usdToMicros(usd), discountsBp, priceRise }) as MachineRecord;

describe('the price floor', () => {
  it('at $0.01 per GPU-hour, every plan at every allowed discount costs at least a micro-dollar, and starting it needs money', () => {
    for (let bp = 0; bp <= 4000; bp += 100) {
      const pricing = { pricePerGpuHourMicros: FLOOR, discountsBp: { day: bp, week: bp, month: bp } };
      for (const type of PRICING_TYPES) {
        const unit = unitPriceMicros(pricing, type);
        expect(unit).toBeGreaterThanOrEqual(1n);
        expect(
          dueAtStart(
            { pricingType: type, unitPriceMicros: unit, gpuCount: 1, termMs: isTermPlan(type) ? UNIT_MS[type] : null },
            0n,
          ),
        ).toBeGreaterThan(0n);
      }
    }
  });
});

describe('repriced', () => {
  it('a cut applies at once, whole, and drops a rise announced', () => {
    const machine = listing(1, undefined, {
      pricePerGpuHourMicros: usdToMicros(2),
      discountsBp: { day: 0, week: 0, month: 0 },
      atMs: NOW + 1,
    });
    expect(repriced(machine, { pricePerGpuHourMicros: usdToMicros(0.5) }, NOW, NOTICE_MS)).toEqual({
      pricePerGpuHourMicros: usdToMicros(0.5),
      discountsBp: { day: 0, week: 0, month: 0 },
      priceRise: null,
    });
  });

  it('a rise of the price, or of one plan through a smaller discount, is announced for now + notice; the listing keeps charging today’s prices', () => {
    const machine = listing(1);
    expect(repriced(machine, { pricePerGpuHourMicros: usdToMicros(4) }, NOW, NOTICE_MS)).toEqual({
      pricePerGpuHourMicros: usdToMicros(1),
      discountsBp: machine.discountsBp,
      priceRise: { pricePerGpuHourMicros: usdToMicros(4), discountsBp: machine.discountsBp, atMs: NOW + NOTICE_MS },
    });
    const fewer = { day: 1000, week: 1500, month: 3000 };
    expect(repriced(machine, { discountsBp: fewer }, NOW, NOTICE_MS).priceRise).toEqual({
      pricePerGpuHourMicros: usdToMicros(1),
      discountsBp: fewer,
      atMs: NOW + NOTICE_MS,
    });
    // Every rise gets its whole notice from when it is made.
    const again = repriced(
      { ...machine, priceRise: { pricePerGpuHourMicros: usdToMicros(4), discountsBp: machine.discountsBp, atMs: NOW } },
      { pricePerGpuHourMicros: usdToMicros(3) },
      NOW + 5,
      NOTICE_MS,
    );
    expect(again.priceRise).toEqual({
      pricePerGpuHourMicros: usdToMicros(3),
      discountsBp: machine.discountsBp,
      atMs: NOW + 5 + NOTICE_MS,
    });
  });

  it('raisesAnyPlan compares every plan: a higher price with a larger discount still raises the hour plan', () => {
    expect(raisesAnyPlan(listing(1), listing(1.1, { day: 4000, week: 4000, month: 4000 }))).toBe(true);
    expect(raisesAnyPlan(listing(1), listing(1, { day: 2000, week: 3000, month: 4000 }))).toBe(false);
  });
});

describe('requireWithinCap', () => {
  it('passes at or under the cap (or without one); above it, 409 price_above_max naming max_price_per_gpu_hour', () => {
    expect(() => requireWithinCap(listing(4), usdToMicros(4), 'max_price_per_gpu_hour')).not.toThrow();
    expect(() => requireWithinCap(listing(4), null, 'max_price_per_gpu_hour')).not.toThrow();
    try {
      requireWithinCap(listing(4), usdToMicros(0.01), 'max_price_per_gpu_hour');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({
        code: 'price_above_max',
        status: 409,
        param: 'max_price_per_gpu_hour',
        meta: { price_per_gpu_hour_usd: 4 },
      });
    }
  });
});
