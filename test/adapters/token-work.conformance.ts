/**
 * The one behavioural contract of the tokenizer port (src/adapters/tokenizer/index.ts): every implementation
 * counts, estimates and truncates exactly as src/domain/text/token-counting.ts does, for short text and for text long enough
 * that the gateway sends it off the event loop, and survives concurrent jobs.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { TokenWork } from '../../src/adapters/tokenizer/index.js';
import { countTokens, estimatePromptTokens, truncateToTokens } from '../../src/domain/text/token-counting.js';

/** Printable characters in a fixed pseudo-random order: many tokens per character, the slow case. */
function noisyText(length: number, seed = 7): string {
  let state = seed;
  let text = '';
  for (let i = 0; i < length; i++) {
    state = (state * 48_271) % 2_147_483_647;
    text += i % 9 === 8 ? ' ' : String.fromCharCode(33 + (state % 94));
  }
  return text;
}

const LONG = noisyText(200_000);
const TEXTS = ['', 'hello world', 'Grüße aus Köln 👋', LONG, 'z'.repeat(70_000)];

export function tokenWorkConformance(name: string, make: () => TokenWork): void {
  describe(`token work: ${name}`, () => {
    const work = make();
    afterAll(() => work.close());

    it('count: each text as countTokens counts it', async () => {
      expect(await work.count(TEXTS)).toEqual(TEXTS.map(countTokens));
    });

    it('promptTokens: a chat body as estimatePromptTokens counts it', async () => {
      const body = {
        messages: [
          { role: 'system', content: 'Be brief.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: LONG },
              { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
            ],
            name: 'ann',
          },
        ],
        tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      };
      expect(await work.promptTokens(body)).toBe(estimatePromptTokens(body));
    });

    it('truncate: each text cut as truncateToTokens cuts it', async () => {
      expect(await work.truncate(TEXTS, 50)).toEqual(TEXTS.map((text) => truncateToTokens(text, 50)));
    });

    it('concurrent jobs each get their own answer', async () => {
      const texts = [noisyText(30_000, 1), noisyText(40_000, 2), noisyText(50_000, 3)];
      const counts = await Promise.all(texts.map((text) => work.count([text])));
      expect(counts).toEqual(texts.map((text) => [countTokens(text)]));
    });
  });
}
