/**
 * Counting o200k tokens over the compact rank table (o200k-table.ts): o200k's split pattern, then byte-pair merging
 * of each piece that is not one token, as gpt-tokenizer does (tokenizer.ts cuts long text into segments first).
 * Written here: gpt-tokenizer's merge reads its own Maps, not a table of another shape.
 */
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { NO_RANK, NOT_ASCII, type O200kTable } from './o200k-table.js';

/** A piece's UTF-8, and the merge's part starts and pair ranks: reused by every count, grown for a longer piece. */
let pieceBytes = new Uint8Array(256);
let partStarts = new Int32Array(257);
let pairRanks = new Int32Array(257);
const utf8 = new TextEncoder();

/**
 * Counts of pieces that are not one token, kept as gpt-tokenizer keeps its merges: words of a language written
 * without spaces, code and JSON repeat such pieces. Emptied when full rather than kept in use order, which costs
 * a lookup more on every hit; text of pieces that never repeat (base64) would only churn it either way.
 */
const mergeCounts = new Map<string, number>();
const MERGE_COUNTS = 4096;

/**
 * The o200k count of `text` as gpt-tokenizer counts it with no special tokens (text that looks like one,
 * `<|endoftext|>`, is counted as the plain text it is): the text cut into pieces by o200k's split pattern
 * (gpt-tokenizer's own), each piece one token when it is one, otherwise as many as its byte-pair merge leaves.
 */
export function countText(table: O200kTable, text: string): number {
  let tokens = 0;
  for (const [piece] of text.matchAll(O200K_TOKEN_SPLIT_REGEX)) tokens += countPiece(table, piece);
  return tokens;
}

function countPiece(table: O200kTable, piece: string): number {
  const asciiRank = table.asciiRank(piece);
  if (asciiRank !== NO_RANK && asciiRank !== NOT_ASCII) return 1;
  const merged = mergeCounts.get(piece);
  if (merged !== undefined) return merged;
  if (pieceBytes.length < piece.length * 3) pieceBytes = new Uint8Array(piece.length * 3);
  const n = utf8.encodeInto(piece, pieceBytes).written;
  // gpt-tokenizer looks a whole piece up by its string, which a piece with a lone surrogate (written as U+FFFD) is not.
  if (
    asciiRank === NOT_ASCII &&
    table.stringRank(pieceBytes, 0, n) !== NO_RANK &&
    (piece as WellFormedString).isWellFormed()
  )
    return 1;
  const tokens = mergedParts(table, pieceBytes, n);
  if (mergeCounts.size >= MERGE_COUNTS) mergeCounts.clear();
  mergeCounts.set(piece, tokens);
  return tokens;
}

/** ES2024's String.prototype.isWellFormed (Node 20 has it; the project's TypeScript library is ES2023). */
type WellFormedString = string & { isWellFormed(): boolean };

/**
 * How many tokens byte-pair merging leaves of `bytes[0, n)`: the adjacent pair of parts with the lowest rank is
 * merged, the leftmost on a tie, until no pair is a token (tiktoken's and gpt-tokenizer's algorithm), on typed
 * arrays rather than gpt-tokenizer's spliced ones.
 */
function mergedParts(table: O200kTable, bytes: Uint8Array, n: number): number {
  if (partStarts.length < n + 1) {
    partStarts = new Int32Array(n + 1);
    pairRanks = new Int32Array(n + 1);
  }
  const starts = partStarts;
  const ranks = pairRanks;
  for (let i = 0; i <= n; i++) {
    starts[i] = i;
    ranks[i] = i < n - 1 ? table.rank(bytes, i, i + 2) : NO_RANK;
  }
  // Parts are [starts[i], starts[i + 1]); ranks[i] is the rank of parts i and i + 1 together.
  let ends = n + 1;
  while (ends > 1) {
    let lowest = NO_RANK;
    let at = -1;
    for (let i = 0; i < ends - 1; i++) {
      const rank = ranks[i] as number;
      if (rank < lowest) {
        lowest = rank;
        at = i;
      }
    }
    if (at < 0) break;
    starts.copyWithin(at + 1, at + 2, ends);
    ranks.copyWithin(at, at + 1, ends);
    ends--;
    ranks[at] = at + 2 < ends ? table.rank(bytes, starts[at] as number, starts[at + 2] as number) : NO_RANK;
    if (at > 0) ranks[at - 1] = table.rank(bytes, starts[at - 1] as number, starts[at + 1] as number);
  }
  return ends - 1;
}
