/**
 * Token counts for quotes: gpt-tokenizer's o200k encoding, built on the first count rather than at import. Its
 * 200,000 ranks hold about 18 MB of heap, which a server that has not quoted a token-priced call need not carry.
 */
import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { RawBytePairRanks } from 'gpt-tokenizer/BytePairEncodingCore';
import { GptEncoding } from 'gpt-tokenizer/GptEncoding';

/** Counts the tokens of a text. */
export type TokenCounter = (text: string) => number;

let o200k: GptEncoding | undefined;

/** The o200k_base token count of a text, as `countTokens` of gpt-tokenizer's default encoding. */
export const countTokens: TokenCounter = (text) => {
  o200k ??= GptEncoding.getEncodingApi('o200k_base', readO200kRanks);
  return o200k.countTokens(text);
};

/**
 * An upper bound on `countTokens` that needs no encoding: every token stands for at least one UTF-8 byte of the
 * text. Start-up uses it to check the catalog's default requests without loading the tokenizer.
 */
export const tokenCeiling: TokenCounter = (text) => Buffer.byteLength(text, 'utf8');

/**
 * The o200k ranks from the rank file gpt-tokenizer ships (`data/o200k_base.tiktoken`, one `base64 rank` line per
 * token), decoded exactly as its code generator writes its `bpeRanks/o200k_base.js`: a token whose bytes are UTF-8
 * that survives a round trip is a string, any other one its byte values. Not importing that generated module spares
 * its 2.4 MB of source, which V8 keeps in memory beside the ranks, and the parse of one 200,000-element literal.
 */
export function readO200kRanks(): RawBytePairRanks {
  const file = createRequire(import.meta.url).resolve('gpt-tokenizer/data/o200k_base.tiktoken');
  const text = readFileSync(file, 'latin1');
  const ranks: Array<string | number[]> = [];
  for (let start = 0; start < text.length; ) {
    const space = text.indexOf(' ', start);
    let end = text.indexOf('\n', space);
    if (end < 0) end = text.length;
    if (space < 0 || space > end) throw new Error(`gpt-tokenizer rank file: bad line at offset ${start}`);
    const bytes = Buffer.from(text.slice(start, space), 'base64');
    const rank = Number(text.slice(space + 1, end));
    // Ranks the file skips are holes, which the generator fills with empty strings.
    while (ranks.length < rank) ranks.push('');
    ranks.push(decodeExactly(bytes) ?? Array.from(bytes));
    start = end + 1;
  }
  return ranks;
}

/**
 * The bytes as a string when they are UTF-8 and decode back to as many bytes: the generator's TextDecoder drops a
 * leading byte order mark, so a token that starts with one stays bytes.
 */
function decodeExactly(bytes: Buffer): string | undefined {
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return !bom && isUtf8(bytes) ? bytes.toString('utf8') : undefined;
}
