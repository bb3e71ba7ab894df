import { describe, expect, it } from 'vitest';
import { RELIABILITY_WINDOW_MINUTES, reliabilityBp } from '../../src/adapters/market-store/reliability.js';

describe('machine reliability (RunPod’s formula over 30 days)', () => {
  it('is (heard + 10 minutes) / window, at most 100 %, over the machine’s life while younger than the window', () => {
    expect(reliabilityBp(0, 5)).toBe(10_000);
    expect(reliabilityBp(90, 100)).toBe(10_000);
    expect(reliabilityBp(40, 100)).toBe(5_000);
    expect(reliabilityBp(RELIABILITY_WINDOW_MINUTES - 874, RELIABILITY_WINDOW_MINUTES * 2)).toBe(9_800);
    expect(reliabilityBp(0, RELIABILITY_WINDOW_MINUTES)).toBe(2);
  });
});
