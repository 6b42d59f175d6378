/** The verify-nik lookup (GET /v1/tools/verify-nik): what a NIK says, and whether a birth date and gender agree. */
import { z } from '@hono/zod-openapi';
import { invalidInput } from '../http/errors.js';
import { dateAtOffset } from './dates.js';
import type { Lookup } from './lookup.js';
import { normalizeNik, parseDayMonthYear, parseGender, verifyNik } from './nik.js';

/** NIK birth dates are judged against today's date in Jakarta (WIB). */
export const todayInIndonesia = () => dateAtOffset(7);

export const CheckSchema = z
  .object({ name: z.string(), ok: z.boolean(), detail: z.string() })
  .openapi('LookupCheck');

const NikRegionSchema = z.object({
  kode: z.string().openapi({ description: 'Digits 1-6 as PP.KK.CC' }),
  provinsi: z.string().nullable(),
  kabupaten_kota: z.string().nullable(),
  kecamatan: z.string().nullable(),
  current_kode: z
    .string()
    .nullable()
    .openapi({ description: 'Today’s kabupaten/kota code when the NIK carries a retired one' }),
});

export const NikSchema = z
  .object({
    ok: z.boolean(),
    format: z.literal('nik16'),
    nik: z.string(),
    region: NikRegionSchema,
    birth_date: z.string().nullable().openapi({ example: '1985-03-12' }),
    gender: z.enum(['laki-laki', 'perempuan']).nullable(),
    serial: z.string(),
    agrees: z.object({ birth_date: z.boolean().nullable(), gender: z.boolean().nullable() }),
    checks: z.array(CheckSchema),
    notes: z.array(z.string()),
    note: z.string(),
  })
  .openapi('NikVerification');

interface NikInput {
  nik: string;
  birth_date?: string;
  gender?: string;
}

function verifyNikAnswer(input: Record<string, unknown>): Record<string, unknown> {
  const { nik, birth_date, gender } = input as unknown as NikInput;
  const problems: Array<{ field: string; message: string }> = [];
  const normalized = normalizeNik(nik);
  if (!normalized.ok) problems.push({ field: 'nik', message: normalized.message });
  const birthDate = birth_date === undefined ? undefined : parseDayMonthYear(birth_date);
  if (birth_date !== undefined && !birthDate) {
    problems.push({
      field: 'birth_date',
      message: `must be DD-MM-YYYY and a real date, e.g. 12-03-1985 (got "${birth_date}")`,
    });
  }
  const claimedGender = gender === undefined ? undefined : parseGender(gender);
  if (gender !== undefined && !claimedGender) {
    problems.push({ field: 'gender', message: 'must be L, LAKI-LAKI, M, MALE, P, PEREMPUAN, F or FEMALE' });
  }
  if (problems.length > 0 || !normalized.ok) throw invalidInput(problems);
  return { ...verifyNik(normalized.digits, { birthDate, gender: claimedGender }, todayInIndonesia()) };
}

export const verifyNikLookup: Lookup = {
  answer: { schema: NikSchema, description: 'What the number says and which checks pass' },
  errors: [400],
  run: verifyNikAnswer,
};
