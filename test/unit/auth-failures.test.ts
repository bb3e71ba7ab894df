/** AuthFailures (src/domain/keys/auth-failures.ts): a sliding window of unknown keys per address, in bounded memory. */
import { describe, expect, it } from 'vitest';
import { AuthFailures } from '../../src/domain/keys/auth-failures.js';

function failures(limit = 3, maxAddresses = 1000) {
  const clock = { now: 0 };
  return { clock, failures: new AuthFailures({ limit, windowMs: 60_000, maxAddresses, now: () => clock.now }) };
}

describe('AuthFailures', () => {
  it('waits once the limit is reached inside the window, until the oldest failure leaves it', () => {
    const { clock, failures: f } = failures();
    for (const at of [0, 10_000, 20_000]) {
      clock.now = at;
      expect(f.waitMs('a')).toBe(0);
      f.record('a');
    }
    expect(f.waitMs('a')).toBe(40_000);
    clock.now = 59_999;
    expect(f.waitMs('a')).toBe(1);
    clock.now = 60_000;
    expect(f.waitMs('a')).toBe(0);
    expect(f.waitMs('b')).toBe(0);
  });

  it('keeps at most `limit` times per address and forgets the least recently failing address past `maxAddresses`', () => {
    const { clock, failures: f } = failures(2, 2);
    for (let i = 0; i < 100; i++) f.record('a');
    clock.now = 1;
    f.record('b');
    f.record('b');
    clock.now = 2;
    f.record('a'); // a fails again: b is now the least recent
    f.record('c');
    expect(f.waitMs('b')).toBe(0); // forgotten
    expect(f.waitMs('a')).toBeGreaterThan(0);
  });
});
