/**
 * The texts of o200k_base's tokens by rank, held as one string and each token's start in it: about 3 MB where the
 * library's array of 198,427 strings took 6.8 MB of heap (bench/README.md, "Memory"). The encoder looks texts up
 * through the rank index (o200k-rank-index.ts), and the decoder reads them by rank through `asDecoder`.
 */
const NONE = 0;
const TEXT = 1;
const BYTES = 2;

export class TokenTexts {
  /** Every text, rank after rank. */
  private readonly all: string;
  /** Rank r's text is `all` from `starts[r]` to `starts[r + 1]` (empty for a rank without one). */
  private readonly starts: Int32Array;
  private readonly kinds: Uint8Array;

  /** `ranks`: index = rank, as the library's decoder (a text, bytes that are not UTF-8, or a hole). */
  constructor(ranks: readonly (string | number[] | undefined)[]) {
    this.starts = new Int32Array(ranks.length + 1);
    this.kinds = new Uint8Array(ranks.length);
    const texts: string[] = [];
    let at = 0;
    for (let rank = 0; rank < ranks.length; rank++) {
      const entry = ranks[rank];
      this.starts[rank] = at;
      if (typeof entry === 'string') {
        this.kinds[rank] = TEXT;
        texts.push(entry);
        at += entry.length;
      } else this.kinds[rank] = entry === undefined ? NONE : BYTES;
    }
    this.starts[ranks.length] = at;
    this.all = texts.join('');
  }

  get size(): number {
    return this.kinds.length;
  }

  hasText(rank: number): boolean {
    return this.kinds[rank] === TEXT;
  }

  /** Whether `text` is rank's text. */
  is(rank: number, text: string): boolean {
    const start = this.starts[rank]!;
    return (
      this.kinds[rank] === TEXT && this.starts[rank + 1]! - start === text.length && this.all.startsWith(text, start)
    );
  }

  /** FNV-1a over the UTF-16 code units of rank's text (o200k-rank-index.ts hashes a text looked up the same way). */
  hash(rank: number): number {
    return hashOf(this.all, this.starts[rank]!, this.starts[rank + 1]!);
  }

  /**
   * The library's decoder (`BytePairEncodingCore.bytePairRankDecoder`), which it reads only by index, to decode: a
   * rank's text, an object for bytes that are not UTF-8 (the library keeps those apart), or undefined. Decoding
   * through it costs about 0.1 µs a token, eight times the array's: only truncation decodes, and it counts again.
   */
  asDecoder(): (string | object | undefined)[] {
    const bytes = Object.freeze({});
    return new Proxy([], {
      get: (_target, key) => {
        const rank = typeof key === 'string' ? Number(key) : Number.NaN;
        if (!(rank >= 0 && rank < this.size)) return undefined;
        const kind = this.kinds[rank];
        if (kind === TEXT) return this.all.slice(this.starts[rank], this.starts[rank + 1]);
        return kind === BYTES ? bytes : undefined;
      },
    });
  }
}

/** FNV-1a over UTF-16 code units from `start` to `end`: a token's text is a few characters, and every one counts. */
export function hashOf(text: string, start = 0, end = text.length): number {
  let hash = 0x811c9dc5;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}
