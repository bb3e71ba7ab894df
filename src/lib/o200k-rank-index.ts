/**
 * A token's text → its rank, for the 200,000 texts of o200k_base, in an open-addressing table of `Int32Array` slots
 * over the decoder's own strings: about 2 MB where the library's `Map` of the same texts took about 7 MB of heap
 * (bench/README.md, "Memory"). Lookups are what the encoder asks of that `Map`: `get`, nothing else.
 */
export class RankIndex {
  /** rank + 1 per slot (0: empty); sized to a power of two at least 2.5 times the texts, so probes stay short. */
  private readonly slots: Int32Array;
  private readonly mask: number;

  /** `ranks`: index = rank, as the library's decoder (a text, bytes that are not UTF-8, or a hole). */
  constructor(private readonly ranks: readonly (string | number[] | undefined)[]) {
    let size = 1;
    while (size < ranks.length * 2.5) size *= 2;
    this.slots = new Int32Array(size);
    this.mask = size - 1;
    ranks.forEach((text, rank) => {
      if (typeof text !== 'string') return;
      let slot = hashOf(text) & this.mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & this.mask;
      this.slots[slot] = rank + 1;
    });
  }

  get(text: string): number | undefined {
    for (let slot = hashOf(text) & this.mask; ; slot = (slot + 1) & this.mask) {
      const entry = this.slots[slot]!;
      if (entry === 0) return undefined;
      if (this.ranks[entry - 1] === text) return entry - 1;
    }
  }
}

/** FNV-1a over UTF-16 code units: a token's text is a few characters, and every one of them counts. */
function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}
