/**
 * TokenCounter: nothing is counted before the caller's floor check passed (issue 23), short text is counted on the
 * event loop, long text by the heavy-work port in a bounded line fair between accounts.
 */
import { describe, expect, it } from 'vitest';
import { InProcessTokenWork } from '../../src/adapters/tokenizer/in-process.js';
import { type TokenWork, TokenWorkTimeout } from '../../src/adapters/tokenizer/index.js';
import { TokenCounter, type TokenizeThread } from '../../src/domain/text/token-counter.js';
import { ApiError } from '../../src/errors/api-error.js';
import { countTokens, INLINE_TOKENIZE_CHARS } from '../../src/lib/token-count.js';

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

/** Heavy work that finishes only when the test says so, recording the order texts start in (by their first word). */
function gatedWork(): TokenWork & { started: string[]; finish: (text: string) => void } {
  const started: string[] = [];
  const gates = new Map<string, () => void>();
  return {
    started,
    finish: (text) => gates.get(text)!(),
    count: (texts) => {
      const tag = texts[0]!.split(' ')[0]!;
      started.push(tag);
      return new Promise((resolve) => gates.set(tag, () => resolve(texts.map(() => 1))));
    },
    promptTokens: () => Promise.resolve(1),
    truncate: (texts) => Promise.resolve([...texts]),
    close: async () => undefined,
  };
}

const long = 'word '.repeat(INLINE_TOKENIZE_CHARS / 4);
const longOf = (tag: string) => `${tag} ${long}`;
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('TokenCounter', () => {
  it('short text is counted here, after the floor check, and the port is not asked', async () => {
    const work = recordingWork();
    const seen: [TokenizeThread, number][] = [];
    const counter = new TokenCounter(work, { onCounted: (thread, chars) => seen.push([thread, chars]) });
    const order: string[] = [];
    const options = { owner: 'acct_a', floorCheck: async () => void order.push('check') };
    expect(await counter.count(['hello', 'world'], options)).toEqual([countTokens('hello'), countTokens('world')]);
    expect(await counter.promptTokens({ messages: [{ role: 'user', content: 'hi' }] }, options)).toBeGreaterThan(0);
    expect(work.jobs).toEqual([]);
    expect(order).toEqual(['check', 'check']);
    expect(seen).toEqual([
      ['event_loop', 10],
      ['event_loop', 6],
    ]);
  });

  it('long text goes to the port, after the floor check, and is reported as worker characters', async () => {
    const work = recordingWork();
    const seen: [TokenizeThread, number][] = [];
    const counter = new TokenCounter(work, { onCounted: (thread, chars) => seen.push([thread, chars]) });
    const order: string[] = [];
    const options = { owner: 'acct_a', floorCheck: async () => void order.push('check') };
    expect(await counter.count([long, 'x'], options)).toEqual([countTokens(long), 1]);
    expect(await counter.truncate([long], 3, options)).toEqual(['word word word']);
    expect(work.jobs).toEqual(['count', 'truncate']);
    expect(order).toEqual(['check', 'check']);
    expect(seen).toEqual([
      ['worker', long.length + 1],
      ['worker', long.length],
    ]);
  });

  it('a refused floor check is what the caller gets, and nothing is counted, short text included', async () => {
    const work = recordingWork();
    const seen: TokenizeThread[] = [];
    const counter = new TokenCounter(work, { onCounted: (thread) => seen.push(thread) });
    const refusal = new Error('402');
    const options = { owner: 'acct_zero', floorCheck: () => Promise.reject(refusal) };
    await expect(counter.promptTokens({ messages: [{ role: 'user', content: long }] }, options)).rejects.toBe(refusal);
    await expect(counter.count(['\u3000'.repeat(16_200)], options)).rejects.toBe(refusal);
    expect(work.jobs).toEqual([]);
    expect(seen).toEqual([]);
  });

  it("one account's flood waits behind its own task: another account's text starts after at most one task", async () => {
    const work = gatedWork();
    const counter = new TokenCounter(work, { queue: { concurrency: 1, maxWaiting: 100, maxWaitingPerOwner: 100 } });
    const flood = ['1', '2', '3', '4'].map((n) => counter.count([longOf(`hostile${n}`)], { owner: 'hostile' }));
    await settle();
    const bystander = counter.count([longOf('bystander')], { owner: 'bystander' });
    await settle();
    expect(work.started).toEqual(['hostile1']);
    work.finish('hostile1');
    await settle();
    expect(work.started).toEqual(['hostile1', 'bystander']); // next, ahead of hostile2..4
    work.finish('bystander');
    await expect(bystander).resolves.toEqual([1]);
    for (const n of ['2', '3', '4']) {
      await settle();
      work.finish(`hostile${n}`);
    }
    await expect(Promise.all(flood)).resolves.toHaveLength(4);
  });

  it("one account cannot fill the line: past its own share it is refused, and another account's text still waits its turn", async () => {
    const work = gatedWork();
    const counter = new TokenCounter(work, { queue: { concurrency: 1, maxWaiting: 10, maxWaitingPerOwner: 2 } });
    const admitted = ['h1', 'h2', 'h3'].map((tag) => counter.count([longOf(tag)], { owner: 'hostile' })); // one running, two waiting
    await settle();
    await expect(counter.count([longOf('h4')], { owner: 'hostile' })).rejects.toMatchObject({
      code: 'tokenizer_busy',
      status: 503,
    });
    const bystander = counter.count([longOf('b')], { owner: 'bystander' });
    for (const tag of ['h1', 'b', 'h2', 'h3']) {
      await settle();
      work.finish(tag);
    }
    await expect(Promise.all([...admitted, bystander])).resolves.toHaveLength(4);
    expect(work.started).toEqual(['h1', 'b', 'h2', 'h3']);
  });

  it('a full line answers 503 tokenizer_busy with Retry-After, without counting', async () => {
    const work = gatedWork();
    const counter = new TokenCounter(work, { queue: { concurrency: 1, maxWaiting: 2, maxWaitingPerOwner: 2 } });
    const admitted = ['a', 'b', 'c'].map((tag) => counter.count([longOf(tag)], { owner: tag }));
    await settle();
    const refused = await counter.count([longOf('d')], { owner: 'd' }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ code: 'tokenizer_busy', status: 503, headers: { 'Retry-After': '1' } });
    expect(work.started).toEqual(['a']);
    for (const tag of ['a', 'b', 'c']) {
      work.finish(tag);
      await settle();
    }
    await expect(Promise.all(admitted)).resolves.toHaveLength(3);
  });

  it('a task past its time cap fails the request with 503 tokenizer_busy (not a count on the event loop)', async () => {
    const timedOut: TokenWork = { ...gatedWork(), count: () => Promise.reject(new TokenWorkTimeout(250)) };
    const seen: TokenizeThread[] = [];
    const counter = new TokenCounter(timedOut, { onCounted: (thread) => seen.push(thread) });
    await expect(counter.count([long], { owner: 'a' })).rejects.toMatchObject({
      code: 'tokenizer_busy',
      headers: { 'Retry-After': '1' },
    });
    expect(seen).toEqual(['worker']);
  });
});
