/**
 * o200k's 200,000 ranks as three typed arrays (every token's bytes end to end, where each one starts, and a hash
 * table over them): about 4.5 MB, against the 15–18 MB of strings, Maps and arrays gpt-tokenizer keeps, and built
 * from the rank file gpt-tokenizer ships without a string per token. Counting with it (see o200k-count.ts) gives
 * gpt-tokenizer's counts, which the tests compare text for text.
 *
 * Written here: gpt-tokenizer builds its tables as JavaScript objects (its Maps and strings are most of a chat
 * server's live heap, and the larger live heap raises where the garbage collector lets the heap grow), and no
 * maintained o200k tokenizer on npm keeps its ranks in flat arrays.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** What a rank lookup answers for bytes that are no token. */
export const NO_RANK = 0x7fffffff;
/** What asciiRank answers for a string that is not all ASCII. */
export const NOT_ASCII = -1;

/**
 * How gpt-tokenizer keys a token: as the string its bytes decode to when they are UTF-8 that survives a round trip
 * and does not start with a byte order mark, otherwise as its bytes. The two are looked up differently (see rank).
 */
const AS_STRING = 1;
const AS_BYTES = 2;

/** Slots of the hash table: a power of two, about 2.6 per token, so that probes stay short. */
const TABLE_SLOTS = 1 << 19;

export class O200kTable {
  /** Every token's bytes, in rank order. */
  private readonly bytes: Uint8Array;
  /** Where token `rank` starts in `bytes`; it ends where `rank + 1` starts. */
  private readonly starts: Uint32Array;
  /** AS_STRING or AS_BYTES per rank. */
  private readonly kinds: Uint8Array;
  /** Open addressing over the tokens' bytes (FNV-1a, linear probes): rank + 1, or 0 for an empty slot. */
  private readonly slots = new Int32Array(TABLE_SLOTS);
  /** The longest token's length in bytes (128 in o200k): longer bytes are no token, without a lookup. */
  private readonly longest: number = 0;

  constructor(bytes: Uint8Array, starts: Uint32Array, kinds: Uint8Array) {
    this.bytes = bytes;
    this.starts = starts;
    this.kinds = kinds;
    for (let rank = 0; rank < kinds.length; rank++) {
      const start = starts[rank] as number;
      const end = starts[rank + 1] as number;
      this.longest = Math.max(this.longest, end - start);
      let slot = hash(bytes, start, end) & (TABLE_SLOTS - 1);
      while (this.slots[slot] !== 0) slot = (slot + 1) & (TABLE_SLOTS - 1);
      this.slots[slot] = rank + 1;
    }
  }

  /** How many tokens there are. */
  get size(): number {
    return this.kinds.length;
  }

  /** The bytes of token `rank` (a view, not a copy). */
  tokenBytes(rank: number): Uint8Array {
    return this.bytes.subarray(this.starts[rank], this.starts[rank + 1]);
  }

  /** Whether gpt-tokenizer keys token `rank` as a string (rather than as its bytes). */
  keyedAsString(rank: number): boolean {
    return this.kinds[rank] === AS_STRING;
  }

  /**
   * The rank of the string whose UTF-8 is `key[from, to)` (a well-formed string, so its bytes are valid UTF-8), or
   * NO_RANK: a whole piece looked up as gpt-tokenizer looks it up, in its Map of string-keyed tokens.
   */
  stringRank(key: Uint8Array, from: number, to: number): number {
    return this.find(key, from, to, AS_STRING);
  }

  /**
   * stringRank for a string of ASCII characters, read from its character codes (its bytes) without encoding it;
   * NOT_ASCII when the string has another character.
   */
  asciiRank(text: string): number {
    let h = FNV_OFFSET;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0x80) return NOT_ASCII;
      h = Math.imul(h ^ c, FNV_PRIME);
    }
    return this.probe(h >>> 0, text, 0, text.length, AS_STRING);
  }

  /**
   * The rank of the bytes `key[from, to)` as gpt-tokenizer's merge looks bytes up, or NO_RANK: bytes that are
   * valid UTF-8 are decoded (a leading byte order mark dropped, as TextDecoder does) and looked up among the
   * string-keyed tokens; other bytes among the byte-keyed ones.
   */
  rank(key: Uint8Array, from: number, to: number): number {
    if (to - from > this.longest + 3) return NO_RANK;
    if (!isUtf8(key, from, to)) return this.find(key, from, to, AS_BYTES);
    return this.find(key, startsWithBom(key, from) ? from + 3 : from, to, AS_STRING);
  }

  private find(key: Uint8Array, from: number, to: number, kind: number): number {
    return this.probe(hash(key, from, to), key, from, to - from, kind);
  }

  /**
   * The rank of the token whose hash is `h` and whose bytes are `key`'s `length` units from `from` (bytes, or the
   * character codes of an ASCII string), if it is keyed as `kind`; else NO_RANK.
   */
  private probe(h: number, key: Uint8Array | string, from: number, length: number, kind: number): number {
    if (length === 0 || length > this.longest) return NO_RANK;
    const { bytes, starts, slots } = this;
    for (let slot = h & (TABLE_SLOTS - 1); ; slot = (slot + 1) & (TABLE_SLOTS - 1)) {
      const entry = slots[slot] as number;
      if (entry === 0) return NO_RANK;
      const rank = entry - 1;
      const start = starts[rank] as number;
      if ((starts[rank + 1] as number) - start !== length) continue;
      const same =
        typeof key === 'string' ? sameChars(bytes, start, key) : sameBytes(bytes, start, key, from, length);
      if (same) return this.kinds[rank] === kind ? rank : NO_RANK;
    }
  }
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** 32-bit FNV-1a of `bytes[from, to)`. */
function hash(bytes: Uint8Array, from: number, to: number): number {
  let h = FNV_OFFSET;
  for (let i = from; i < to; i++) h = Math.imul(h ^ (bytes[i] as number), FNV_PRIME);
  return h >>> 0;
}

/** Whether `bytes` has a UTF-8 byte order mark (EF BB BF) at `at`. */
function startsWithBom(bytes: Uint8Array, at: number): boolean {
  return bytes[at] === 0xef && bytes[at + 1] === 0xbb && bytes[at + 2] === 0xbf;
}

function sameBytes(a: Uint8Array, aFrom: number, b: Uint8Array, bFrom: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (a[aFrom + i] !== b[bFrom + i]) return false;
  return true;
}

function sameChars(bytes: Uint8Array, from: number, text: string): boolean {
  for (let i = 0; i < text.length; i++) if (bytes[from + i] !== text.charCodeAt(i)) return false;
  return true;
}

/**
 * Whether `bytes[from, to)` is well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF).
 * node:buffer's isUtf8 says the same of a whole view; this reads a range in place, without making a view per pair
 * the merge looks up.
 */
function isUtf8(bytes: Uint8Array, from: number, to: number): boolean {
  let i = from;
  while (i < to) {
    const lead = bytes[i] as number;
    if (lead < 0x80) {
      i++;
      continue;
    }
    let extra: number;
    let min: number;
    let cp: number;
    if (lead >= 0xc2 && lead <= 0xdf) {
      extra = 1;
      min = 0x80;
      cp = lead & 0x1f;
    } else if ((lead & 0xf0) === 0xe0) {
      extra = 2;
      min = 0x800;
      cp = lead & 0x0f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      extra = 3;
      min = 0x10000;
      cp = lead & 0x07;
    } else return false;
    if (i + extra >= to) return false;
    for (let j = 1; j <= extra; j++) {
      const next = bytes[i + j] as number;
      if ((next & 0xc0) !== 0x80) return false;
      cp = (cp << 6) | (next & 0x3f);
    }
    if (cp < min || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return false;
    i += extra + 1;
  }
  return true;
}

/**
 * Builds the table from the rank file gpt-tokenizer ships (`data/o200k_base.tiktoken`, one `base64 rank` line per
 * token, in rank order from 0), decoding each line's base64 straight into the shared byte array. A token is keyed
 * as a string when its bytes are UTF-8 without a leading byte order mark, as gpt-tokenizer's generator decides
 * (its TextDecoder would drop the mark, so such a token stays bytes).
 */
export function readO200kTable(): O200kTable {
  const file = createRequire(import.meta.url).resolve('gpt-tokenizer/data/o200k_base.tiktoken');
  const text = readFileSync(file, 'latin1');
  let lines = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) lines++;
  if (!text.endsWith('\n')) lines++;
  const starts = new Uint32Array(lines + 1);
  // Base64 encodes 3 bytes in 4 characters, so three quarters of the file's length bounds the bytes.
  const decoded = Buffer.allocUnsafe(Math.ceil((text.length * 3) / 4));
  let tokens = 0;
  for (let start = 0; start < text.length; ) {
    const space = text.indexOf(' ', start);
    let end = text.indexOf('\n', space);
    if (end < 0) end = text.length;
    if (space < 0 || space > end) throw new Error(`gpt-tokenizer rank file: bad line at offset ${start}`);
    const rank = Number(text.slice(space + 1, end));
    if (rank !== tokens) throw new Error(`gpt-tokenizer rank file: rank ${rank} out of order`);
    const used = starts[tokens] as number;
    starts[++tokens] = used + decoded.write(text.slice(start, space), used, 'base64');
    start = end + 1;
  }
  const packed = new Uint8Array(decoded.subarray(0, starts[tokens]));
  const kinds = new Uint8Array(tokens);
  for (let rank = 0; rank < tokens; rank++) {
    const from = starts[rank] as number;
    const asString = !startsWithBom(packed, from) && isUtf8(packed, from, starts[rank + 1] as number);
    kinds[rank] = asString ? AS_STRING : AS_BYTES;
  }
  return new O200kTable(packed, starts.subarray(0, tokens + 1), kinds);
}
