/**
 * Token counts of texts counted lately, by the text itself. A conversation sends every earlier message again on
 * each turn, and agents send the same system prompt and tool definitions on every call: counting them once, and
 * looking them up after, turns a quote's cost from the length of the whole conversation into that of its new
 * messages (a lookup hashes the text once, more than ten times cheaper than counting it).
 *
 * Bounded by weight (characters, plus a fixed charge per entry for the map's own memory); the least recently used
 * texts go first. Written here: the LRU caches on npm (lru-cache and the like) are built for objects of any size,
 * and what this needs is a Map kept in use order, which is what a Map already is.
 */

/** What an entry weighs beyond its characters: the map's slot and the number. */
const ENTRY_WEIGHT = 64;

export class CountMemo {
  private readonly counts = new Map<string, number>();
  private weight = 0;

  /**
   * @param maxWeight what all entries may weigh together (characters, plus ENTRY_WEIGHT each)
   * @param maxTextChars texts longer than this are not kept (one text may not push out everything else)
   */
  constructor(
    private readonly maxWeight: number,
    private readonly maxTextChars: number,
  ) {}

  /** The count of `text`, if it is kept; it becomes the most recently used. */
  get(text: string): number | undefined {
    const tokens = this.counts.get(text);
    if (tokens !== undefined) {
      // A Map iterates in insertion order: setting again moves the entry to the end, the most recent.
      this.counts.delete(text);
      this.counts.set(text, tokens);
    }
    return tokens;
  }

  /** Keeps `tokens` as the count of `text`, pushing out the least recently used texts past the weight. */
  set(text: string, tokens: number): void {
    if (text.length > this.maxTextChars || this.counts.has(text)) return;
    this.counts.set(text, tokens);
    this.weight += text.length + ENTRY_WEIGHT;
    if (this.weight <= this.maxWeight) return;
    for (const oldest of this.counts.keys()) {
      this.counts.delete(oldest);
      this.weight -= oldest.length + ENTRY_WEIGHT;
      if (this.weight <= this.maxWeight) return;
    }
  }

  get size(): number {
    return this.counts.size;
  }
}
