/**
 * Token counts for quotes: o200k_base, as gpt-tokenizer counts it, over a compact rank table (see o200k-table.ts)
 * built on the first count (or by buildTokenCounter, which a server that sells chat calls once it listens) rather
 * than at import. The table holds about 4.5 MB, which a server that quotes no token-priced call need not carry.
 */
import { CountMemo } from './count-memo.js';
import { countText } from './o200k-count.js';
import { type O200kTable, readO200kTable } from './o200k-table.js';

/** Counts the tokens of a text. */
export type TokenCounter = (text: string) => number;

let o200k: O200kTable | undefined;

/**
 * The longest stretch without a place to cut (see isCutPlace) the counter is handed whole. Byte-pair merging costs
 * the square of a piece's length (60,000 × "x" took seconds), and text without spaces (one character repeated, CJK,
 * emoji) arrives as one piece; such a stretch is counted in pieces of this many UTF-16 units instead, which keeps
 * counting linear: at worst (random base64, whose pieces are not in the vocabulary) about 0.1 µs per character.
 * Ordinary prose, code and JSON have a place to cut every few characters and count exactly as o200k does; a cut
 * stretch may count a token or so more per 64 characters than the upstream will.
 */
export const MAX_PIECE_CHARS = 64;
/** Text is handed to the counter in segments of about this many characters, cut where no token can span. */
const SEGMENT_CHARS = 4096;
/**
 * Counts of texts counted lately (see CountMemo): up to 8 M characters in all, a text of up to 1 M. Only whole
 * counts are kept; a count stopped at a cap is not.
 */
const memo = new CountMemo(8 * 1024 * 1024, 1024 * 1024);

function table(): O200kTable {
  o200k ??= readO200kTable();
  return o200k;
}

/**
 * Builds the rank table now if it is not built yet (60–100 ms of CPU) and says how long that took, in
 * milliseconds (0 when it was built already). A server that sells chat calls it once it listens, so that its first
 * chat call, and every request in flight with it, does not wait through the build.
 */
export function buildTokenCounter(): number {
  if (o200k) return 0;
  const started = performance.now();
  table();
  return performance.now() - started;
}

/** Whether a UTF-16 unit is whitespace as the `\s` of o200k's split pattern reads it. */
function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

const isAsciiLetter = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
const isAsciiDigit = (c: number) => c >= 0x30 && c <= 0x39;

/**
 * Whether no o200k piece spans the place between units `prev` and `c` (so counting the text on each side of it
 * gives the whole text's count). Three such places are recognised, from o200k's split pattern:
 * - a space or tab after a non-space: a piece holding a space or tab starts with it or is all whitespace;
 * - an ASCII letter followed by another ASCII character that is not a letter or an apostrophe: a letter piece ends
 *   with its last letter (or a contraction, 's 'll …), and no other kind of piece holds letters;
 * - an ASCII digit followed by an ASCII non-digit: digits are pieces of their own (one to three at a time).
 */
function isCutPlace(prev: number, c: number, prevSpace: boolean): boolean {
  if (c === 0x20 || c === 0x09) return !prevSpace;
  if (c >= 0x80) return false;
  if (isAsciiLetter(prev)) return !isAsciiLetter(c) && c !== 0x27;
  return isAsciiDigit(prev) && !isAsciiDigit(c);
}

/**
 * Where the segment of `text` that starts at `start` ends: at the first cut place (see isCutPlace) once the segment
 * is `segmentChars` long, so whole segments count what the whole text does; or, where MAX_PIECE_CHARS pass without
 * a cut place, there (never inside a surrogate pair).
 */
export function segmentEnd(text: string, start: number, segmentChars = SEGMENT_CHARS): number {
  const n = text.length;
  let stretch = start;
  let prev = text.charCodeAt(start);
  let prevSpace = isSpace(prev);
  for (let i = start + 1; i < n; i++) {
    const c = text.charCodeAt(i);
    if (isCutPlace(prev, c, prevSpace)) {
      if (i - start >= segmentChars) return i;
      stretch = i;
    } else if (i - stretch >= MAX_PIECE_CHARS && (c < 0xdc00 || c > 0xdfff)) {
      return i;
    }
    prev = c;
    prevSpace = isSpace(c);
  }
  return n;
}

/**
 * The o200k_base token count of a text, in time linear in its length (see MAX_PIECE_CHARS and segmentEnd):
 * exactly o200k's count unless MAX_PIECE_CHARS pass without a place to cut.
 * Written here: gpt-tokenizer has no bound on piece length, and no maintained o200k counter has one.
 */
export const countFresh: TokenCounter = (text) => {
  const ranks = table();
  const n = text.length;
  if (n <= MAX_PIECE_CHARS) return countText(ranks, text);
  let tokens = 0;
  for (let start = 0; start < n; ) {
    const end = segmentEnd(text, start);
    tokens += countText(ranks, start === 0 && end === n ? text : text.slice(start, end));
    start = end;
  }
  return tokens;
};

/** countFresh's count, looked up instead when the text was counted lately (see CountMemo). */
export const countTokens: TokenCounter = (text) => {
  const known = memo.get(text);
  if (known !== undefined) return known;
  const tokens = countFresh(text);
  memo.set(text, tokens);
  return tokens;
};

/** The count of `text` if it was counted lately (see CountMemo), without counting it. */
export const countedLately = (text: string): number | undefined => memo.get(text);

/** How long a count runs before it gives the event loop back. */
const SLICE_MS = 1;

/**
 * Long counts take turns: one runs at a time, so however many long bodies arrive together, each turn of the event
 * loop spends at most one slice on counting and the rest on every other request.
 */
let counting: Promise<unknown> = Promise.resolve();

/**
 * Counts `texts` as countTokens does, a slice of SLICE_MS at a time, giving the event loop back between slices so
 * other requests are served meanwhile, and after any other long count before it; stops once the total passes
 * `cap` (`complete` is then false and `tokens` is where it stopped).
 */
export function countTokensPatiently(
  texts: readonly string[],
  cap = Number.POSITIVE_INFINITY,
): Promise<{ tokens: number; complete: boolean }> {
  const turn = counting.then(() => countInSlices(texts, cap));
  counting = turn.catch(() => {});
  return turn;
}

async function countInSlices(
  texts: readonly string[],
  cap: number,
): Promise<{ tokens: number; complete: boolean }> {
  const ranks = table();
  let tokens = 0;
  let sliceEnds = performance.now() + SLICE_MS;
  for (const text of texts) {
    const known = memo.get(text);
    if (known !== undefined) {
      tokens += known;
      if (tokens > cap) return { tokens, complete: false };
      continue;
    }
    let own = 0;
    for (let start = 0; start < text.length; ) {
      const end = segmentEnd(text, start);
      own += countText(ranks, text.slice(start, end));
      start = end;
      if (tokens + own > cap) return { tokens: tokens + own, complete: false };
      if (performance.now() >= sliceEnds) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceEnds = performance.now() + SLICE_MS;
      }
    }
    memo.set(text, own);
    tokens += own;
  }
  return { tokens, complete: true };
}

/**
 * An upper bound on `countTokens` that needs no encoding: every token stands for at least one UTF-8 byte of the
 * text. Start-up uses it to check the catalog's default requests without loading the tokenizer.
 */
export const tokenCeiling: TokenCounter = (text) => Buffer.byteLength(text, 'utf8');
