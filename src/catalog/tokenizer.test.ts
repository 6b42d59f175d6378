// The o200k token counter: the same counts as gpt-tokenizer, and linear-time counting of long text in pieces.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { countTokens as packageCount } from 'gpt-tokenizer';
import generatedRanks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { describe, expect, it } from 'vitest';
import {
  countedLately,
  countFresh,
  countTokens,
  countTokensPatiently,
  MAX_PIECE_CHARS,
  readO200kRanks,
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
  it('reads the same ranks as the module gpt-tokenizer generates from its rank file', () => {
    const ranks = readO200kRanks();
    expect(ranks.length).toBe(generatedRanks.length);
    expect(ranks).toEqual(generatedRanks);
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
