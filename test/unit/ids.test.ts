import { afterEach, describe, expect, it, vi } from 'vitest';
import { BASE62_ALPHABET, newId, newSortableId, randomBase62 } from '../../src/lib/ids.js';

describe('newId', () => {
  it('is the prefix, an underscore and 20 base62 characters', () => {
    for (const prefix of ['acc', 'key', 'req'])
      expect(newId(prefix)).toMatch(new RegExp(`^${prefix}_[0-9A-Za-z]{20}$`));
  });

  it('does not repeat', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newId('req')));
    expect(ids.size).toBe(10_000);
  });

  it('rejects prefixes that would make ambiguous ids', () => {
    for (const prefix of ['', 'Acc', 'a_b', '1x', 'acc ']) expect(() => newId(prefix)).toThrow(RangeError);
  });
});

describe('newSortableId', () => {
  afterEach(() => vi.useRealTimers());

  it('has the shape of newId', () => {
    expect(newSortableId('req')).toMatch(/^req_[0-9A-Za-z]{20}$/);
    expect(() => newSortableId('Req')).toThrow(RangeError);
  });

  it('sorts as strings in the order of the milliseconds it was made in, across digit carries', () => {
    vi.useFakeTimers();
    const times = [0, 1, 61, 62, 3_843, 3_844, 1_795_430_683_213, 1_795_430_683_214, 62 ** 8 - 1];
    const ids = times.map((ms) => {
      vi.setSystemTime(ms);
      return newSortableId('log');
    });
    expect([...ids].sort()).toEqual(ids);
    expect(ids[0]!.slice(4, 12)).toBe('00000000');
    expect(ids.at(-1)!.slice(4, 12)).toBe('zzzzzzzz');
  });

  it('does not repeat within one millisecond', () => {
    vi.useFakeTimers({ now: 1_795_430_683_213 });
    const ids = Array.from({ length: 10_000 }, () => newSortableId('req'));
    expect(new Set(ids).size).toBe(10_000);
    expect(new Set(ids.map((id) => id.slice(0, 12))).size).toBe(1);
  });
});

describe('randomBase62', () => {
  it('returns exactly the requested length, zero included', () => {
    for (const length of [0, 1, 7, 20, 40, 500]) expect(randomBase62(length)).toHaveLength(length);
  });

  it('rejects negative or fractional lengths', () => {
    expect(() => randomBase62(-1)).toThrow(RangeError);
    expect(() => randomBase62(1.5)).toThrow(RangeError);
  });

  it('uses every symbol about equally (no modulo bias towards the first 8 symbols)', () => {
    const counts = new Map<string, number>();
    const sample = randomBase62(62 * 2_000);
    for (const ch of sample) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect([...counts.keys()].sort().join('')).toBe([...BASE62_ALPHABET].sort().join(''));
    // Expected 2,000 each (σ ≈ 44). A plain `byte % 62` would give the first 8 symbols ~2,420 and the rest ~1,940.
    const low =
      BASE62_ALPHABET.slice(0, 8)
        .split('')
        .reduce((sum, ch) => sum + (counts.get(ch) ?? 0), 0) / 8;
    const high =
      BASE62_ALPHABET.slice(8)
        .split('')
        .reduce((sum, ch) => sum + (counts.get(ch) ?? 0), 0) / 54;
    expect(Math.abs(low - high)).toBeLessThan(100);
    for (const n of counts.values()) expect(n).toBeGreaterThan(1_700);
  });
});
