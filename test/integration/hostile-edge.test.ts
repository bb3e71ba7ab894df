/**
 * A hostile client costs nothing (issue 8): a megabyte prompt from a key with no money is refused before a
 * character of it is tokenized; from a funded key it is counted on a worker thread, not on the event loop
 * (`gateway_tokenized_chars_total` says where); the largest embeddings answer (2048 vectors of 3072 floats,
 * about 130 MB of JSON) is written one vector at a time and arrives whole.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HARNESS_DATABASES } from '../setup/databases.js';
import { expectCompatError } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { harnessOn } from '../setup/suite-harness.js';
import { expectNothingBilled, money } from './gateway-helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** Characters tokenized so far, by thread, from the gateway's own metric. */
async function tokenizedChars(gateway = h): Promise<{ event_loop: number; worker: number }> {
  const metric = await gateway.deps.metrics.getSingleMetric('gateway_tokenized_chars_total')!.get();
  const of = (thread: string) => metric.values.find((v) => v.labels.thread === thread)?.value ?? 0;
  return { event_loop: of('event_loop'), worker: of('worker') };
}

/** 1,000,000 characters of words: about 170,000 tokens, inside gpt-5-mini's window. */
const MEGA_PROMPT = 'gateways count every token twice '.repeat(30_304).slice(0, 1_000_000);

const chat = (key: string) =>
  call(h.baseUrl, 'POST', '/v1/compat/chat/completions', {
    key,
    body: { model: 'gpt-5-mini', messages: [{ role: 'user', content: MEGA_PROMPT }], max_tokens: 16 },
  });

describe('a megabyte prompt', () => {
  it('from a $0 key: 402 insufficient_balance, and not one character of it tokenized', async () => {
    const broke = await h.newAccount();
    const before = { chars: await tokenizedChars(), money: await money(h, broke.accountId) };
    expectCompatError(await chat(broke.apiKey), 402, 'insufficient_balance');
    const after = await tokenizedChars();
    expect(after.worker).toBe(before.chars.worker);
    expect(after.event_loop - before.chars.event_loop).toBeLessThan(1_000);
    await expectNothingBilled(h, broke.accountId, before.money);
  });

  it('from a funded key: answered, counted on a worker thread, billed on that count', async () => {
    const funded = await h.newAccount(undefined, { balanceUsd: 10 });
    const before = await tokenizedChars();
    const response = await chat(funded.apiKey);
    expect(response.status, response.text).toBe(200);
    const after = await tokenizedChars();
    expect(after.worker - before.worker).toBeGreaterThanOrEqual(MEGA_PROMPT.length);
    expect(after.event_loop - before.event_loop).toBeLessThan(100_000);
    expect(response.body.usage.prompt_tokens).toBeGreaterThan(100_000);
  });
});

describe('the largest embeddings answer', () => {
  it('2048 inputs at 3072 dimensions: written in pieces (no Content-Length), arrives whole, in order', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const input = Array.from({ length: 2048 }, (_, i) => `w${i}`);
    const response = await fetch(`${h.baseUrl}/v1/compat/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'text-embedding-3-large', input }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBeNull();
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await response.json()) as {
      object: string;
      data: { index: number; embedding: number[] }[];
      usage: { prompt_tokens: number; cost: number };
    };
    expect(body.object).toBe('list');
    expect(body.data).toHaveLength(2048);
    expect(body.data.map((item) => item.index)).toEqual(input.map((_, i) => i));
    for (const item of [body.data[0]!, body.data[2047]!]) expect(item.embedding).toHaveLength(3072);
    expect(body.usage.prompt_tokens).toBeGreaterThanOrEqual(2048);
  }, 60_000);
});

describe.each(HARNESS_DATABASES)(
  'inline-sized hostile text from a zero-balance key on $name (issue 23)',
  (database) => {
    const harness = harnessOn(database);
    // 16,200 ideographic spaces: under the inline limit, and one pre-token the encoder once took 1.8 s to count.
    const WHITESPACE = `x${'\u3000'.repeat(16_200)}x`;

    it('chat, embeddings and rerank answer 402 before a character is counted, on the event loop or off it', async () => {
      const g = harness();
      const broke = await g.newAccount();
      const before = { chars: await tokenizedChars(g), money: await money(g, broke.accountId) };
      const asks = [
        [
          '/v1/compat/chat/completions',
          { model: 'gpt-5-mini', messages: [{ role: 'user', content: WHITESPACE }], max_tokens: 1 },
        ],
        ['/v1/compat/embeddings', { model: 'text-embedding-3-small', input: WHITESPACE }],
        ['/v1/compat/rerank', { model: 'qwen3-rerank', query: WHITESPACE, documents: [WHITESPACE] }],
      ] as const;
      for (const [path, body] of asks)
        expectCompatError(
          await call(g.baseUrl, 'POST', path, { key: broke.apiKey, body }),
          402,
          'insufficient_balance',
        );
      expect(await tokenizedChars(g)).toEqual(before.chars);
      await expectNothingBilled(g, broke.accountId, before.money);
    });
  },
);

describe.each(HARNESS_DATABASES)('a counting task over its time cap on $name (issue 23)', (database) => {
  const harness = harnessOn(database, { TOKENIZER_TASK_TIMEOUT_MS: '1' });

  it('answers 503 tokenizer_busy with Retry-After, and the funded caller is charged nothing', async () => {
    const g = harness();
    const funded = await g.newAccount(undefined, { balanceUsd: 10 });
    const before = await money(g, funded.accountId);
    const response = await call(g.baseUrl, 'POST', '/v1/compat/chat/completions', {
      key: funded.apiKey,
      body: { model: 'gpt-5-mini', messages: [{ role: 'user', content: MEGA_PROMPT }], max_tokens: 16 },
    });
    expectCompatError(response, 503, 'tokenizer_busy');
    expect(response.headers.get('retry-after')).toBe('1');
    await expectNothingBilled(g, funded.accountId, before);
  });
});
