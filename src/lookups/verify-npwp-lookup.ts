/** The verify-npwp lookup (GET /v1/tools/verify-npwp): an NPWP's parts and check digit, or its holder's NIK. */
import { z } from '@hono/zod-openapi';
import { invalidInput } from '../http/errors.js';
import type { Lookup } from './lookup.js';
import { normalizeNpwp, verifyNpwp } from './npwp.js';
import { CheckSchema, NikSchema, todayInIndonesia } from './verify-nik-lookup.js';

const NpwpSchema = z
  .object({
    ok: z.boolean(),
    format: z.enum(['legacy15', 'npwp16', 'nik16']),
    normalized: z.string(),
    formatted: z.string().nullable().openapi({ example: '01.312.166.0-091.000' }),
    parts: z
      .object({
        taxpayer_id: z.string(),
        kpp_code: z.string(),
        branch_code: z.string(),
        is_head_office: z.boolean(),
        taxpayer_type: z.string(),
      })
      .nullable(),
    nik: NikSchema.optional().openapi({ description: 'For a 16-digit number that is the holder’s NIK' }),
    checks: z.array(CheckSchema),
    notes: z.array(z.string()),
  })
  .openapi('NpwpVerification');

function verifyNpwpAnswer(input: Record<string, unknown>): Record<string, unknown> {
  const normalized = normalizeNpwp(String(input.npwp));
  if (!normalized.ok) throw invalidInput([{ field: 'npwp', message: normalized.message }]);
  return { ...verifyNpwp(normalized.digits, todayInIndonesia()) };
}

export const verifyNpwpLookup: Lookup = {
  answer: { schema: NpwpSchema, description: 'The parts and which checks pass' },
  errors: [400],
  run: verifyNpwpAnswer,
};
