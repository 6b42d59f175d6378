/** The terbilang lookup (GET /v1/tools/terbilang): a whole number in Indonesian words and as a rupiah phrase. */
import { z } from '@hono/zod-openapi';
import { invalidInput } from '../http/errors.js';
import type { Lookup } from './lookup.js';
import { parseWholeNumber, type RupiahCase, rupiahPhrase, TERBILANG_MAX, terbilang } from './terbilang.js';

const TerbilangSchema = z
  .object({
    number: z.number().int().openapi({ example: 1250000 }),
    formatted: z.string().openapi({ example: '1.250.000' }),
    terbilang: z.string().openapi({ example: 'satu juta dua ratus lima puluh ribu' }),
    rupiah: z.string().openapi({ example: 'Satu Juta Dua Ratus Lima Puluh Ribu Rupiah' }),
  })
  .openapi('Terbilang');

// Made on first use: a process's first Intl formatter loads several MB of ICU data, which most never need.
let idFormat: Intl.NumberFormat | undefined;

function formatIndonesian(value: bigint): string {
  idFormat ??= new Intl.NumberFormat('id-ID');
  return idFormat.format(value);
}

function terbilangAnswer(input: Record<string, unknown>): Record<string, unknown> {
  // `case` is defaulted (title) by the catalog schema.
  const { n, case: letterCase } = input as { n: string; case: RupiahCase };
  const parsed = parseWholeNumber(n);
  if (!parsed.ok) throw invalidInput([{ field: 'n', message: parsed.message }]);
  const value = parsed.value;
  if (value > TERBILANG_MAX || value < -TERBILANG_MAX) {
    throw invalidInput([
      { field: 'n', message: 'must be at most 999.999.999.999.999 (999 triliun) either side of 0' },
    ]);
  }
  return {
    number: Number(value),
    formatted: formatIndonesian(value),
    terbilang: terbilang(value),
    rupiah: rupiahPhrase(value, letterCase),
  };
}

export const terbilangLookup: Lookup = {
  answer: { schema: TerbilangSchema, description: 'The number in words' },
  errors: [400],
  run: terbilangAnswer,
};
