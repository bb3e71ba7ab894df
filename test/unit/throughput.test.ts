import { describe, expect, it } from 'vitest';
import { type ThroughputSample, ThroughputTracker } from '../../src/domain/catalog/throughput.js';

const T0 = 1_750_000_000_000;

function tracker(options: { windowMs?: number; maxSamplesPerModel?: number } = {}) {
  const clock = { nowMs: T0 };
  return { clock, throughput: new ThroughputTracker({ ...options, now: () => clock.nowMs }) };
}

/** `tokensPerSec` tokens per second over a 1 s stream, with the given time to first token. */
const sample = (tokensPerSec: number, firstTokenMs = 100): ThroughputSample => ({
  outputTokens: tokensPerSec,
  firstTokenMs,
  streamMs: 1000,
});

describe('ThroughputTracker', () => {
  it('reports nothing for a slug never measured', () => {
    const { throughput } = tracker();
    expect(throughput.stats('chat-a')).toEqual({ samples: 0, tokensPerSec: null, medianTtftMs: null });
    expect(throughput.measuredSlugs()).toEqual([]);
  });

  it('computes tokens per second from output tokens over the first-to-last-token time', () => {
    const { throughput } = tracker();
    expect(throughput.record('chat-a', { outputTokens: 300, firstTokenMs: 250, streamMs: 4000 })).toBe(true);
    expect(throughput.stats('chat-a')).toEqual({ samples: 1, tokensPerSec: 75, medianTtftMs: 250 });
  });

  it('takes the middle value of an odd count, whatever the order recorded', () => {
    const { throughput } = tracker();
    for (const [rate, ttft] of [
      [90, 500],
      [10, 100],
      [50, 300],
      [1000, 50],
      [40, 9000],
    ] as const)
      throughput.record('chat-a', sample(rate, ttft));
    expect(throughput.stats('chat-a')).toEqual({ samples: 5, tokensPerSec: 50, medianTtftMs: 300 });
  });

  it('takes the mean of the two middle values of an even count', () => {
    const { throughput } = tracker();
    for (const [rate, ttft] of [
      [20, 100],
      [40, 200],
      [30, 150],
      [10, 50],
    ] as const)
      throughput.record('chat-a', sample(rate, ttft));
    expect(throughput.stats('chat-a')).toEqual({ samples: 4, tokensPerSec: 25, medianTtftMs: 125 });
  });

  it('ignores samples that say nothing about speed', () => {
    const { throughput } = tracker();
    const ignored: ThroughputSample[] = [
      { outputTokens: 1, firstTokenMs: 100, streamMs: 1000 },
      { outputTokens: 0, firstTokenMs: 100, streamMs: 1000 },
      { outputTokens: 100, firstTokenMs: 100, streamMs: 0 },
      { outputTokens: 100, firstTokenMs: 100, streamMs: -5 },
      { outputTokens: Number.NaN, firstTokenMs: 100, streamMs: 1000 },
      { outputTokens: 100, firstTokenMs: -1, streamMs: 1000 },
      { outputTokens: 100, firstTokenMs: 100, streamMs: Number.POSITIVE_INFINITY },
    ];
    for (const bad of ignored) expect(throughput.record('chat-a', bad)).toBe(false);
    expect(throughput.stats('chat-a').samples).toBe(0);
    expect(throughput.measuredSlugs()).toEqual([]);
    // The smallest sample that counts: two tokens over 1 ms.
    expect(throughput.record('chat-a', { outputTokens: 2, firstTokenMs: 0, streamMs: 1 })).toBe(true);
    expect(throughput.stats('chat-a')).toEqual({ samples: 1, tokensPerSec: 2000, medianTtftMs: 0 });
  });

  it('keeps slugs apart and lists the measured ones', () => {
    const { throughput } = tracker();
    throughput.record('chat-a', sample(10));
    throughput.record('chat-b', sample(20));
    throughput.record('chat-b', sample(40));
    expect(throughput.stats('chat-a')).toMatchObject({ samples: 1, tokensPerSec: 10 });
    expect(throughput.stats('chat-b')).toMatchObject({ samples: 2, tokensPerSec: 30 });
    expect(throughput.measuredSlugs().sort()).toEqual(['chat-a', 'chat-b']);
  });

  it('drops samples once they are a full window old', () => {
    const { clock, throughput } = tracker({ windowMs: 60_000 });
    throughput.record('chat-a', sample(10, 100));
    clock.nowMs = T0 + 30_000;
    throughput.record('chat-a', sample(30, 300));
    clock.nowMs = T0 + 59_999;
    expect(throughput.stats('chat-a')).toEqual({ samples: 2, tokensPerSec: 20, medianTtftMs: 200 });
    clock.nowMs = T0 + 60_000;
    expect(throughput.stats('chat-a')).toEqual({ samples: 1, tokensPerSec: 30, medianTtftMs: 300 });
    clock.nowMs = T0 + 90_000;
    expect(throughput.stats('chat-a')).toEqual({ samples: 0, tokensPerSec: null, medianTtftMs: null });
    expect(throughput.measuredSlugs()).toEqual([]);
  });

  it('stops listing a slug whose samples have all left the window', () => {
    const { clock, throughput } = tracker({ windowMs: 1_000 });
    throughput.record('chat-old', sample(10));
    clock.nowMs = T0 + 500;
    throughput.record('chat-new', sample(10));
    clock.nowMs = T0 + 1_000;
    expect(throughput.measuredSlugs()).toEqual(['chat-new']);
  });

  it('keeps only the newest maxSamplesPerModel samples of a slug', () => {
    const { clock, throughput } = tracker({ maxSamplesPerModel: 3 });
    for (const rate of [1000, 1000, 10, 20, 30]) {
      throughput.record('chat-a', sample(rate));
      clock.nowMs += 1;
    }
    expect(throughput.stats('chat-a')).toMatchObject({ samples: 3, tokensPerSec: 20 });
  });

  it('holds at most maxSamplesPerModel samples, however many are recorded', () => {
    const { throughput } = tracker({ maxSamplesPerModel: 1000 });
    for (let i = 0; i < 5_000; i += 1) throughput.record('chat-a', sample(2 + (i % 7)));
    expect(throughput.stats('chat-a').samples).toBe(1000);
  });

  it('sweeps only what has left the window when a record comes a window after the last sweep', () => {
    const { clock, throughput } = tracker({ windowMs: 1_000 });
    throughput.record('chat-old', sample(10));
    clock.nowMs = T0 + 999;
    throughput.record('chat-recent', sample(20));
    clock.nowMs = T0 + 1_000;
    throughput.record('chat-new', sample(30));
    expect(throughput.measuredSlugs().sort()).toEqual(['chat-new', 'chat-recent']);
    expect(throughput.stats('chat-recent')).toMatchObject({ samples: 1, tokensPerSec: 20 });
  });

  it('refuses a meaningless configuration', () => {
    expect(() => new ThroughputTracker({ windowMs: 0 })).toThrow(RangeError);
    expect(() => new ThroughputTracker({ maxSamplesPerModel: 0 })).toThrow(RangeError);
    expect(() => new ThroughputTracker({ maxSamplesPerModel: 1.5 })).toThrow(RangeError);
  });
});
