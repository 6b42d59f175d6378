import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { countTokens as packageCount } from 'gpt-tokenizer';
import generatedRanks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { describe, expect, it } from 'vitest';
import { countTokens, readO200kRanks, tokenCeiling } from './tokenizer.js';

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
    'x'.repeat(5000),
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

  it('refuses special tokens as gpt-tokenizer does', () => {
    expect(() => packageCount('<|endoftext|>')).toThrow();
    expect(() => countTokens('<|endoftext|>')).toThrow();
  });
});
