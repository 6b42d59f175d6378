// The o200k token counter: the same counts as gpt-tokenizer, and linear-time counting of long text in pieces.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { countTokens as packageCount } from 'gpt-tokenizer';
import generatedRanks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { describe, expect, it } from 'vitest';
import { countText } from './o200k-count.js';
import { NO_RANK, readO200kTable } from './o200k-table.js';
import {
  countedLately,
  countFresh,
  countTokens,
  countTokensPatiently,
  MAX_PIECE_CHARS,
  segmentEnd,
  tokenCeiling,
} from './tokenizer.js';

/** The o200k samples of gpt-tokenizer's own test plans, and texts a chat body carries. */
function samples(): string[] {
  const plans = readFileSync(
    createRequire(import.meta.url).resolve('gpt-tokenizer/data/TestPlans.txt'),
    'utf8',
  );
  const fromPlans = [...plans.matchAll(/EncodingName: o200k_base\nSample: (.*)\n/g)].map((m) => m[1] ?? '');
  return [
    ...fromPlans,
    'Hello! What can you do?',
    'Selamat pagi! Berapa harga nasi goreng di Jakarta?',
    JSON.stringify({ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }),
    'naïve café — \uFEFFBOM, tabs\tand\nnew lines\r\n, emoji 👩‍👩‍👧‍👦 and 日本語のテキスト',
    ' '.repeat(40),
  ];
}

describe('o200k token counts', () => {
  it('reads the same tokens, keyed the same way, as the module gpt-tokenizer generates from its rank file', () => {
    const table = readO200kTable();
    expect(table.size).toBe(generatedRanks.length);
    const wrong: number[] = [];
    for (let rank = 0; rank < table.size; rank++) {
      const generated = generatedRanks[rank];
      const bytes =
        typeof generated === 'string' ? Buffer.from(generated, 'utf8') : Buffer.from(generated ?? []);
      const asString = typeof generated === 'string';
      // Each token is found by its own bytes, through the lookup its key calls for (gpt-tokenizer's decoder drops a
      // leading byte order mark, so the byte-keyed tokens that start with one are found by no lookup).
      const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
      const found = asString
        ? table.stringRank(bytes, 0, bytes.length) === rank
        : bom || table.rank(bytes, 0, bytes.length) === rank;
      if (
        !Buffer.from(table.tokenBytes(rank)).equals(bytes) ||
        table.keyedAsString(rank) !== asString ||
        !found
      )
        wrong.push(rank);
    }
    expect(wrong).toEqual([]);
    expect(table.stringRank(Buffer.from('no such token at all'), 0, 20)).toBe(NO_RANK);
  });

  it("counts as gpt-tokenizer's default encoding does", () => {
    expect(samples().length).toBeGreaterThan(50);
    for (const text of samples()) expect(countTokens(text), text).toBe(packageCount(text));
  });

  it('bounds every count from above by the UTF-8 length', () => {
    for (const text of samples()) expect(tokenCeiling(text), text).toBeGreaterThanOrEqual(countTokens(text));
  });

  it('counts text that looks like a special token as the plain text it is', () => {
    expect(() => packageCount('<|endoftext|>')).toThrow();
    const plain = (text: string) => packageCount(text, { disallowedSpecial: new Set() });
    for (const text of ['<|endoftext|>', 'a <|endoftext|> b <|fim_prefix|>', '<|im_start|>user'])
      expect(countTokens(text), text).toBe(plain(text));
  });
});

/** Texts from an alphabet that meets every kind of o200k piece: words, digits, punctuation, whitespace, CJK, emoji. */
const mixedText = fc
  .array(
    fc.constantFrom(
      'a',
      'Z',
      'q',
      'é',
      'ß',
      '中',
      '字',
      '😀',
      '7',
      '0',
      '٣',
      ' ',
      '  ',
      '\t',
      '\n',
      '\r\n',
      "'s",
      "'",
      '"',
      ':',
      '{',
      '}',
      ',',
      '.',
      '/',
      '_',
      '-',
      'ing',
      'The',
      'JSON',
      '\u0301',
      '\u00a0',
      '\u3000',
    ),
    { maxLength: 120 },
  )
  .map((parts) => parts.join(''));

/** Cuts a text at every place segmentEnd may cut it and counts the pieces one by one. */
function countAtEveryCut(text: string): { tokens: number; longestStretch: number } {
  let tokens = 0;
  let longestStretch = 0;
  for (let start = 0; start < text.length; ) {
    const end = segmentEnd(text, start, 1);
    tokens += packageCount(text.slice(start, end), { disallowedSpecial: new Set() });
    longestStretch = Math.max(longestStretch, end - start);
    start = end;
  }
  return { tokens, longestStretch };
}

/**
 * Short texts from an alphabet of what makes gpt-tokenizer's lookups differ from a plain byte match: byte order
 * marks (which its decoder drops), lone surrogates (which its encoder writes as U+FFFD), the replacement character
 * itself, and pieces that merge rather than match.
 */
const awkwardText = fc
  .array(
    fc.constantFrom(
      '\uFEFF',
      '\uD83D',
      '\uDE00',
      '\uFFFD',
      '😀',
      'ï»¿',
      'x',
      'Q',
      'zq',
      'ing',
      ' ',
      '\n',
      '7',
      '中',
      'é',
      '\u0301',
      '#',
      '"',
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(''));

describe("o200k counts beside gpt-tokenizer's", () => {
  it('agree on every text of awkward pieces and mixed pieces, counted whole (not cut into segments)', () => {
    const table = readO200kTable();
    const plain = (text: string) => packageCount(text, { disallowedSpecial: new Set() });
    fc.assert(
      fc.property(fc.oneof(awkwardText, mixedText), (text) => {
        expect(countText(table, text)).toBe(plain(text));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('linear-time counts', () => {
  it("cuts only where no o200k piece spans: the pieces sum to the whole text's count", () => {
    fc.assert(
      fc.property(mixedText, (text) => {
        const { tokens, longestStretch } = countAtEveryCut(text);
        fc.pre(longestStretch < MAX_PIECE_CHARS);
        expect(tokens).toBe(packageCount(text, { disallowedSpecial: new Set() }));
      }),
      { numRuns: 3000 },
    );
  });

  it('counts JSON, code and prose exactly', () => {
    const json = JSON.stringify({
      type: 'function',
      function: {
        name: 'get_weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
      },
    });
    const code = 'function add(a,b){return a+b;}\nconst total=[1,2,3].reduce(add,0);'.repeat(50);
    const prose = 'The quick brown fox jumps over the lazy dog. '.repeat(500);
    for (const text of [json, code, prose]) expect(countTokens(text)).toBe(packageCount(text));
  });

  it('counts a stretch with no place to cut in pieces of MAX_PIECE_CHARS, never splitting a surrogate pair', () => {
    const run = 'x'.repeat(MAX_PIECE_CHARS * 10);
    expect(countTokens(run)).toBe(10 * packageCount('x'.repeat(MAX_PIECE_CHARS)));
    const emoji = '😀'.repeat(MAX_PIECE_CHARS * 3);
    for (let start = 0; start < emoji.length; ) {
      const end = segmentEnd(emoji, start);
      expect(emoji.charCodeAt(end) >= 0xdc00 && emoji.charCodeAt(end) <= 0xdfff).toBe(false);
      start = end;
    }
    expect(countTokens(emoji)).toBeGreaterThanOrEqual(packageCount('😀'.repeat(MAX_PIECE_CHARS * 3)) - 3);
  });

  it('counts the same one slice at a time, and stops once past a cap', async () => {
    const texts = ['hello world '.repeat(5000), '中文'.repeat(20000), 'x'.repeat(100_000)];
    const whole = texts.reduce((sum, t) => sum + countFresh(t), 0);
    // Capped first, while none of them was counted: counting stops inside the first text, which is not kept.
    const capped = await countTokensPatiently(texts, 1000);
    expect(capped.complete).toBe(false);
    expect(capped.tokens).toBeGreaterThan(1000);
    expect(capped.tokens).toBeLessThan(whole);
    expect(countedLately(texts[0] as string)).toBeUndefined();
    expect(await countTokensPatiently(texts)).toEqual({ tokens: whole, complete: true });
    for (const t of texts) expect(countedLately(t)).toBe(countFresh(t));
  });
});

describe('texts counted lately', () => {
  it('are looked up, by their characters, with the count they had', () => {
    const system = `You are a careful assistant. ${Date.now()} `.repeat(50);
    expect(countedLately(system)).toBeUndefined();
    const tokens = countTokens(system);
    expect(tokens).toBe(countFresh(system));
    // A copy of the text, as the next request's body parses it, finds the same count.
    const copy = JSON.parse(JSON.stringify(system)) as string;
    expect(countedLately(copy)).toBe(tokens);
    expect(countTokens(copy)).toBe(tokens);
  });

  it('count a conversation whose earlier turns were counted as the sum of fresh counts', async () => {
    const earlier = [`first question ${Date.now()} `.repeat(700), 'first answer '.repeat(700)];
    for (const t of earlier) countTokens(t);
    const next = `second question ${Date.now()} `.repeat(800);
    expect(await countTokensPatiently([...earlier, next])).toEqual({
      tokens: earlier.reduce((sum, t) => sum + countFresh(t), 0) + countFresh(next),
      complete: true,
    });
  });
});
