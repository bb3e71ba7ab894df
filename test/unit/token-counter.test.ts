/**
 * TokenCounter: short text is counted on the event loop, long text by the heavy-work port, and only after the
 * caller's `beforeHeavy` check passed (a refusal there means nothing long is counted at all).
 */
import { describe, expect, it } from 'vitest';
import { InProcessTokenWork, type TokenWork } from '../../src/adapters/tokenizer/index.js';
import { TokenCounter, type TokenizeThread } from '../../src/domain/token-counter.js';
import { countTokens, INLINE_TOKENIZE_CHARS } from '../../src/domain/tokens.js';

/** The in-process twin, counting what reaches it. */
function recordingWork(): TokenWork & { jobs: string[] } {
  const inner = new InProcessTokenWork();
  const jobs: string[] = [];
  return {
    jobs,
    promptTokens: (body) => (jobs.push('promptTokens'), inner.promptTokens(body)),
    count: (texts) => (jobs.push('count'), inner.count(texts)),
    truncate: (texts, max) => (jobs.push('truncate'), inner.truncate(texts, max)),
    close: () => inner.close(),
  };
}

const long = 'word '.repeat(INLINE_TOKENIZE_CHARS / 4);

describe('TokenCounter', () => {
  it('short text is counted here: the port is not asked and beforeHeavy is not called', async () => {
    const work = recordingWork();
    const seen: [TokenizeThread, number][] = [];
    const counter = new TokenCounter(work, (thread, chars) => seen.push([thread, chars]));
    let checked = false;
    const options = { beforeHeavy: async () => void (checked = true) };
    expect(await counter.count(['hello', 'world'], options)).toEqual([countTokens('hello'), countTokens('world')]);
    expect(await counter.promptTokens({ messages: [{ role: 'user', content: 'hi' }] }, options)).toBeGreaterThan(0);
    expect(work.jobs).toEqual([]);
    expect(checked).toBe(false);
    expect(seen).toEqual([
      ['event_loop', 10],
      ['event_loop', 6],
    ]);
  });

  it('long text goes to the port, after beforeHeavy, and is reported as worker characters', async () => {
    const work = recordingWork();
    const seen: [TokenizeThread, number][] = [];
    const counter = new TokenCounter(work, (thread, chars) => seen.push([thread, chars]));
    const order: string[] = [];
    const options = { beforeHeavy: async () => void order.push('check') };
    expect(await counter.count([long, 'x'], options)).toEqual([countTokens(long), 1]);
    expect(await counter.truncate([long], 3, options)).toEqual(['word word word']);
    expect(work.jobs).toEqual(['count', 'truncate']);
    expect(order).toEqual(['check', 'check']);
    expect(seen).toEqual([
      ['worker', long.length + 1],
      ['worker', long.length],
    ]);
  });

  it('a refusal in beforeHeavy is what the caller gets, and nothing is counted', async () => {
    const work = recordingWork();
    const counter = new TokenCounter(work);
    const refusal = new Error('402');
    await expect(counter.promptTokens({ messages: [{ role: 'user', content: long }] }, { beforeHeavy: () => Promise.reject(refusal) })).rejects.toBe(refusal);
    expect(work.jobs).toEqual([]);
  });
});
