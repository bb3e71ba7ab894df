/**
 * The o200k_base encoding (the GPT-4o / GPT-5 family), built from the tiktoken file the library ships
 * (`gpt-tokenizer/data/o200k_base.tiktoken`: each token's bytes in base64 and its rank, a line each) rather than from
 * its generated module of ranks. Compiling that module's 200,000-element array literal took about 25 MB of native
 * memory the process never gave back, and an ES module's record keeps its 2 MB of text and its bytecode on the heap
 * for good (bench/README.md, "Memory"). The table is the module's, entry for entry (test/unit/o200k.test.ts).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { GptEncoding } from 'gpt-tokenizer/GptEncoding';
import { RankIndex } from './o200k-rank-index.js';
import { TokenTexts } from './o200k-token-texts.js';

const RANKS_FILE = createRequire(import.meta.url).resolve('gpt-tokenizer/data/o200k_base.tiktoken');

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A token as the library's generator writes it: its text when its bytes are UTF-8 that decodes to exactly that many
 * bytes (a byte-order mark does not), otherwise the bytes themselves.
 */
function rankEntry(bytes: Buffer): string | number[] {
  try {
    const text = strictUtf8.decode(bytes);
    if (Buffer.byteLength(text) === bytes.length) return text;
  } catch {
    // Not UTF-8: a piece of a multi-byte character.
  }
  return Array.from(bytes);
}

/** Index = rank; a rank no line names stays a hole, as in the generated module. */
export function loadO200kRanks(file: string = RANKS_FILE): (string | number[])[] {
  const ranks: (string | number[])[] = [];
  const text = readFileSync(file, 'latin1'); // base64, a space and digits
  for (let start = 0; start < text.length; ) {
    const space = text.indexOf(' ', start);
    const newline = text.indexOf('\n', space);
    const end = newline === -1 ? text.length : newline;
    if (space === -1 || space >= end) throw new Error(`${file}: not a tiktoken line at offset ${start}`);
    ranks[Number(text.slice(space + 1, end))] = rankEntry(Buffer.from(text.slice(start, space), 'base64'));
    start = end + 1;
  }
  return ranks;
}

/**
 * How many merged pieces (text the table has no single token for) the encoder remembers. The library's default,
 * 100,000, let distinct words grow the heap by about 29 MB over a day of varied text, and its eviction (the oldest
 * key of a Map that keeps its deleted slots until it grows) made counting such text up to five times slower. Ten
 * thousand counts text with a 5,000-word vocabulary as fast as 100,000 does, in about 3 MB at most.
 */
export const MERGE_CACHE_ENTRIES = 10_000;

/** The encoder's core: its rank → text array and text → rank `Map` (gpt-tokenizer 3.4, BytePairEncodingCore). */
interface EncoderCore {
  bytePairRankDecoder: (string | object | undefined)[];
  bytePairStringRankEncoder: { get(text: string): number | undefined };
}

export const o200k = GptEncoding.getEncodingApi('o200k_base', () => loadO200kRanks());
o200k.setMergeCacheSize(MERGE_CACHE_ENTRIES);
// The library keeps every token's text twice, in an array and in a `Map`; the compact texts and their index answer
// the same lookups, and leave both to be collected.
const core = (o200k as unknown as { bytePairEncodingCoreProcessor: EncoderCore }).bytePairEncodingCoreProcessor;
const texts = new TokenTexts(core.bytePairRankDecoder as (string | number[])[]);
core.bytePairStringRankEncoder = new RankIndex(texts);
core.bytePairRankDecoder = texts.asDecoder();
