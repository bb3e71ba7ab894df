import { hashOf, type TokenTexts } from './o200k-token-texts.js';

/**
 * A token's text → its rank, for the 200,000 texts of o200k_base, in an open-addressing table of `Int32Array` slots
 * over the compact texts (o200k-token-texts.ts): about 2 MB where the library's `Map` of the same texts took about
 * 7 MB of heap (bench/README.md, "Memory"). Lookups are what the encoder asks of that `Map`: `get`, nothing else.
 */
export class RankIndex {
  /** rank + 1 per slot (0: empty); sized to a power of two at least 2.5 times the texts, so probes stay short. */
  private readonly slots: Int32Array;
  private readonly mask: number;

  constructor(private readonly texts: TokenTexts) {
    let size = 1;
    while (size < texts.size * 2.5) size *= 2;
    this.slots = new Int32Array(size);
    this.mask = size - 1;
    for (let rank = 0; rank < texts.size; rank++) {
      if (!texts.hasText(rank)) continue;
      let slot = texts.hash(rank) & this.mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & this.mask;
      this.slots[slot] = rank + 1;
    }
  }

  get(text: string): number | undefined {
    for (let slot = hashOf(text) & this.mask; ; slot = (slot + 1) & this.mask) {
      const entry = this.slots[slot]!;
      if (entry === 0) return undefined;
      if (this.texts.is(entry - 1, text)) return entry - 1;
    }
  }
}
