/**
 * src/lib/o200k.ts builds o200k_base from the library's tiktoken file instead of its generated module of ranks (for
 * memory: bench/README.md, "Memory"). The table must be that module's, entry for entry, holes included, so every
 * count is the one the library's own encoding gives.
 */
import generatedRanks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { countTokens, decode, encode } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { loadO200kRanks, MERGE_CACHE_ENTRIES, o200k } from '../../src/lib/o200k.js';
import { RankIndex } from '../../src/lib/o200k-rank-index.js';
import { TokenTexts } from '../../src/lib/o200k-token-texts.js';

describe('o200k_base from the tiktoken file', () => {
  it('is the generated module’s table: the same rank for every token, text or bytes, and the same holes', () => {
    const ranks = loadO200kRanks();
    expect(ranks.length).toBe(generatedRanks.length);
    const differing: number[] = [];
    for (let rank = 0; rank < generatedRanks.length; rank++) {
      const same =
        rank in ranks === rank in generatedRanks &&
        JSON.stringify(ranks[rank] ?? null) === JSON.stringify(generatedRanks[rank] ?? null);
      if (!same) differing.push(rank);
    }
    expect(differing).toEqual([]);
    expect(ranks.some((entry) => Array.isArray(entry))).toBe(true); // bytes that are not UTF-8 stay bytes
  });

  it('finds every token’s rank from its text through the compact index the encoder uses, and nothing else', () => {
    const ranks = loadO200kRanks();
    const core = (o200k as unknown as { bytePairEncodingCoreProcessor: { bytePairStringRankEncoder: unknown } })
      .bytePairEncodingCoreProcessor;
    expect(core.bytePairStringRankEncoder).toBeInstanceOf(RankIndex);
    // The library's own Map and array of the 200,000 texts are gone (a renamed field would leave them in place).
    const large = Object.values(core).filter(
      (value) => (value instanceof Map && value.size > 100_000) || (Array.isArray(value) && value.length > 100_000),
    );
    expect(large).toEqual([]);
    const index = new RankIndex(new TokenTexts(ranks));
    const wrong: number[] = [];
    ranks.forEach((text, rank) => {
      if (typeof text === 'string' && index.get(text) !== rank) wrong.push(rank);
    });
    expect(wrong).toEqual([]);
    for (const text of ['', 'zqxjkvbw-not-a-token', 'hello world and more words than one token'])
      expect(index.get(text)).toBeUndefined();
  });

  it('encodes, counts and decodes as the library’s own encoding', () => {
    const TEXT_ONLY = { disallowedSpecial: new Set<string>() };
    const samples = [
      'Hello, world! How are you today?',
      'Привет, мир. 你好，世界。 🙂🙃 مرحبا بالعالم',
      ' \u3000\u00a0\u2003 \t\n\r\n   leading and trailing   ',
      '<|endoftext|> typed by a user, and <|im_start|>',
      'function f(x) { return x ** 2; } // 1234567890 3.14159',
      '\ufeffbyte-order mark, then e\u0301 and \ud83d\udc4d',
    ];
    for (const text of samples) {
      expect(o200k.encode(text, TEXT_ONLY)).toEqual(encode(text, TEXT_ONLY));
      expect(o200k.countTokens(text, TEXT_ONLY)).toBe(countTokens(text, TEXT_ONLY));
      expect(o200k.decode(o200k.encode(text, TEXT_ONLY))).toBe(decode(encode(text, TEXT_ONLY)));
    }
  });

  it('remembers at most MERGE_CACHE_ENTRIES merged pieces, however many distinct words it counts', () => {
    // The library's own cache, read where it keeps it: the bound keeps a day of varied text from growing the heap.
    const cache = () =>
      (o200k as unknown as { bytePairEncodingCoreProcessor: { mergeCache?: Map<string, unknown> } })
        .bytePairEncodingCoreProcessor.mergeCache;
    // Words of letters only, each its own piece for the encoder, most of them merged: 4× what the cache holds.
    const letters = (n: number) =>
      [...n.toString(26)].map((d) => String.fromCharCode(107 + Number.parseInt(d, 26))).join('');
    const words = Array.from({ length: 4 * MERGE_CACHE_ENTRIES }, (_, i) => `zq${letters(i)}xv`);
    expect(o200k.countTokens(words.join(' '))).toBeGreaterThan(words.length);
    expect(cache()?.size).toBe(MERGE_CACHE_ENTRIES);
  });
});
