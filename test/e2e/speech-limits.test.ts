// Speech text limits as the spec's table has them (2,000, 4,096 or 10,000 characters by model): for every
// text-to-speech model, the limit itself passes validation and one character more is a 400 naming the field the
// caller sent, before any charge. Providers are left unconfigured: a refused input never reaches one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleInput } from '../../src/catalog/examples.js';
import type { ModelEntry } from '../../src/catalog/types.js';
import { type PaidKasir, startPaidKasir } from '../support/paid.js';
import { postPaid } from '../support/paid-call.js';

const SPEC_LIMITS = [2000, 4096, 10_000];

describe('speech text limits', () => {
  let kasir: PaidKasir;
  beforeAll(async () => {
    kasir = await startPaidKasir('sqlite', {});
  });
  afterAll(() => kasir.stop());

  /** Each speech model with the field that holds its text (`text`, `input` or `prompt`) and that field's limit. */
  const speechModels = () =>
    kasir.deps.catalog
      .models()
      .filter((m: ModelEntry) => m.category === 'text-to-speech')
      .map((m: ModelEntry) => {
        const props = m.input.properties as Record<string, { maxLength?: number }>;
        const field = ['text', 'input', 'prompt'].find((f) => props[f]) ?? '';
        return { entry: m, field, limit: props[field]?.maxLength };
      });

  it('every speech model takes one of the spec’s lengths', () => {
    const models = speechModels();
    expect(models.length).toBeGreaterThanOrEqual(12);
    for (const { entry, limit } of models) expect(SPEC_LIMITS, entry.id).toContain(limit);
    // Each length of the table is used by some model.
    expect(new Set(models.map((m) => m.limit))).toEqual(new Set(SPEC_LIMITS));
  });

  it('takes exactly the limit and refuses one character more with a 400 naming the field; no charge', async () => {
    const { key, accountId } = await kasir.fundedKey(10_000_000);
    for (const { entry, field, limit = 0 } of speechModels()) {
      const base = exampleInput(entry);
      const atLimit = kasir.deps.catalog.validate(entry, { ...base, [field]: 'a'.repeat(limit) });
      expect(atLimit.ok, entry.id).toBe(true);
      const over = await postPaid<{ error: { code: string; param?: string; message: string } }>(
        kasir,
        key,
        '/v1/audio/speech',
        { ...base, model: entry.id, [field]: 'a'.repeat(limit + 1) },
      );
      expect(over.status, entry.id).toBe(400);
      expect(over.json.error.code).toBe('invalid_input');
      expect(over.json.error.param, entry.id).toBe(field);
      expect(over.json.error.message).toContain(`at most ${limit} characters`);
      expect(over.charged ?? '0').toBe('0');
    }
    expect(await kasir.balance(accountId)).toEqual({ balance: 10_000_000, held: 0 });
  });
});
