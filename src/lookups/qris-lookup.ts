/** The qris lookup (GET /v1/tools/qris): reads and checks a QRIS payload, and sets its amount when asked. */
import { z } from '@hono/zod-openapi';
import { ApiError, invalidInput } from '../http/errors.js';
import type { Lookup } from './lookup.js';
import { amountProblem, parseQris, QrisParseError, setQrisAmount } from './qris.js';

const MerchantAccountSchema = z
  .object({
    tag: z.string(),
    guid: z.string().nullable(),
    pan: z.string().nullable(),
    nns: z.string().nullable(),
    merchant_id: z.string().nullable(),
    criteria: z.string().nullable(),
    name: z.string().nullable(),
  })
  .openapi('QrisMerchantAccount');

const TlvSchema = z
  .object({
    tag: z.string(),
    length: z.number().int(),
    value: z.string(),
    offset: z.number().int(),
    children: z.array(z.unknown()).optional().openapi({ description: 'Nested data objects of a template' }),
  })
  .openapi('QrisDataObject');

const QrisInfoSchema = z.object({
  valid_crc: z.boolean(),
  crc: z.object({ found: z.string(), computed: z.string() }),
  type: z.enum(['static', 'dynamic']).nullable(),
  merchant_name: z.string().nullable(),
  merchant_city: z.string().nullable(),
  postal_code: z.string().nullable(),
  country: z.string().nullable(),
  currency: z.string().nullable().openapi({ description: 'ISO 4217 numeric, e.g. 360' }),
  currency_alpha: z.string().nullable().openapi({ example: 'IDR' }),
  amount: z.string().nullable().openapi({ description: 'Tag 54 as written', example: '15000' }),
  mcc: z.string().nullable(),
  nmid: z.string().nullable().openapi({ example: 'ID1025411846005' }),
  merchant_criteria: z.string().nullable(),
  acquirer: MerchantAccountSchema.nullable().openapi({
    description: 'The first merchant account (tags 26-45)',
  }),
  merchant_accounts: z.array(MerchantAccountSchema),
  additional_data: z.record(z.string(), z.string()).nullable(),
  warnings: z.array(z.string()),
  elements: z.array(TlvSchema),
});

const QrisSchema = QrisInfoSchema.extend({
  note: z.string(),
  payload: z.string().optional().openapi({
    description: 'With `amount`: the new (dynamic) payload, which the top-level fields describe',
  }),
  source: QrisInfoSchema.optional().openapi({
    description: 'With `amount`: the parse of the payload as sent',
  }),
  with_amount: QrisInfoSchema.extend({ payload: z.string() })
    .optional()
    .openapi({ description: 'With `amount`: the new payload and its parse (the same as the top level)' }),
}).openapi('QrisResult');

const QRIS_NOTE =
  'When valid_crc is false nothing else is to be trusted. This reads merchant codes; it does not create them.';

function qris(input: Record<string, unknown>): Record<string, unknown> {
  const { payload, amount } = input as { payload: string; amount?: string };
  let info: ReturnType<typeof parseQris>;
  try {
    info = parseQris(payload);
  } catch (err) {
    if (!(err instanceof QrisParseError)) throw err;
    throw new ApiError('invalid_input', `invalid input: payload: ${err.message}`, [
      { field: 'payload', message: err.message, offset: err.offset },
    ]);
  }
  if (amount === undefined) return { ...info, note: QRIS_NOTE };
  const problem = amountProblem(amount);
  if (problem) throw invalidInput([{ field: 'amount', message: problem }]);
  if (!info.valid_crc) {
    throw invalidInput([
      {
        field: 'payload',
        message: `its CRC is wrong (found ${info.crc.found}, computed ${info.crc.computed}), so no amount is set on it`,
      },
    ]);
  }
  const next = setQrisAmount(payload, amount);
  // The answer describes the code the caller asked for (dynamic, with its amount); the code sent is `source`.
  const result = { payload: next, ...parseQris(next) };
  return { ...result, note: QRIS_NOTE, source: info, with_amount: result };
}

export const qrisLookup: Lookup = {
  answer: { schema: QrisSchema, description: 'The parsed payload' },
  errors: [400],
  run: qris,
};
