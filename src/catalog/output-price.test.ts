// The output price a metered stream is charged by: the quote's own rule, margin and rounding, with the output counted.
import { describe, expect, it } from 'vitest';
import { loadCatalog } from './load.js';
import { MIN_QUOTE_MICRO_USD } from './price-rules.js';

const catalog = loadCatalog({ marginPercent: { '*': 12.5 } });
const entry = (id: string) => {
  const found = catalog.find(id);
  if (!found) throw new Error(`no ${id}`);
  return found;
};

describe('Catalog.outputPrice', () => {
  const body = {
    messages: [{ role: 'user', content: 'Write me a long story about a ship' }],
    max_tokens: 3000,
  };

  it('prices n output tokens exactly as a quote with max_tokens n', () => {
    const gpt = entry('openai/gpt-4.1');
    const price = catalog.outputPrice(gpt, body);
    for (const n of [1, 17, 256, 1000, 3000])
      expect(price?.(n)).toBe(catalog.quote(gpt, { ...body, max_tokens: n }, 'wallet').costMicroUsd);
    expect(price?.(3000)).toBe(catalog.quote(gpt, body, 'wallet').costMicroUsd);
  });

  it('grows with the output and is never below the floor', () => {
    const price = catalog.outputPrice(entry('openai/gpt-4.1-nano'), body);
    expect(price?.(0)).toBeGreaterThanOrEqual(MIN_QUOTE_MICRO_USD);
    expect(price?.(5000) as number).toBeGreaterThan(price?.(4000) as number);
  });

  it('is undefined for entries not priced per output token', () => {
    const tool = catalog.tools()[0];
    if (tool) expect(catalog.outputPrice(tool, {})).toBeUndefined();
    const image = catalog.models().find((m) => m.price?.kind !== 'chat_tokens');
    if (image) expect(catalog.outputPrice(image, {})).toBeUndefined();
  });
});
