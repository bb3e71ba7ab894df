/** The poll coalescer (src/domain/chat-rooms/coalescer.ts; SPEC 4.2: a 2-second window). */
import { describe, expect, it } from 'vitest';
import { Coalescer } from '../../src/domain/chat-rooms/coalescer.js';

describe('Coalescer', () => {
  it('shares one lookup among callers of a key within the window, then looks again', async () => {
    let nowMs = 0;
    let lookups = 0;
    const coalescer = new Coalescer<number>(2_000, () => nowMs);
    const load = async () => ++lookups;
    expect(await Promise.all([coalescer.get('a', load), coalescer.get('a', load)])).toEqual([1, 1]);
    nowMs = 1_999;
    expect(await coalescer.get('a', load)).toBe(1);
    expect(await coalescer.get('b', load)).toBe(2);
    nowMs = 2_000;
    expect(await coalescer.get('a', load)).toBe(3);
  });

  it('does not keep a failed lookup: the next caller tries again', async () => {
    const coalescer = new Coalescer<string>(2_000, () => 0);
    await expect(coalescer.get('a', async () => Promise.reject(new Error('store down')))).rejects.toThrow('store down');
    expect(await coalescer.get('a', async () => 'fine')).toBe('fine');
  });
});
