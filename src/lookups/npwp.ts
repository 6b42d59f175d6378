/** NPWP (Indonesian tax number) checks: the legacy 15-digit form, its 16-digit successor, and NIK-as-NPWP. */
import type { CalendarDate } from './dates.js';
import { type Check, type NikVerification, verifyNik } from './nik.js';

export type NpwpFormat = 'legacy15' | 'npwp16' | 'nik16';

export interface NpwpParts {
  /** The 9 digits that identify the taxpayer, check digit included. */
  taxpayer_id: string;
  kpp_code: string;
  branch_code: string;
  is_head_office: boolean;
  /** What the second digit says about the holder. */
  taxpayer_type: string;
}

export interface NpwpVerification {
  ok: boolean;
  format: NpwpFormat;
  normalized: string;
  /** The legacy layout, 00.000.000.0-000.000, when the number has one. */
  formatted: string | null;
  parts: NpwpParts | null;
  nik?: NikVerification;
  checks: Check[];
  notes: string[];
}

export type NormalizedNpwp = { ok: true; digits: string } | { ok: false; message: string };

/** Drops the dots, dashes and spaces of the printed forms. */
export function normalizeNpwp(text: string): NormalizedNpwp {
  const digits = text.replace(/[.\-\s]/g, '');
  if (!/^\d*$/.test(digits)) return { ok: false, message: 'must contain only digits, dots and dashes' };
  if (digits.length !== 15 && digits.length !== 16) {
    return { ok: false, message: `must be 15 or 16 digits, got ${digits.length}` };
  }
  return { ok: true, digits };
}

/**
 * Luhn (mod 10): from the right, every second digit is doubled and its digits summed. Ten lines, so no
 * dependency; the same test python-stdnum and Business::ID::NPWP apply to the first 9 NPWP digits.
 * @example luhnValid('013121660') // true (01.312.166.0)
 */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

function taxpayerType(digit: string): string {
  if (digit === '0') return 'government treasurer (bendahara)';
  if ('123'.includes(digit)) return 'company (badan)';
  if (digit === '4' || digit === '6') return 'individual with a business (orang pribadi pengusaha)';
  if (digit === '5') return 'civil servant (PNS)';
  return 'individual (orang pribadi)';
}

function legacyParts(d15: string): NpwpParts {
  const branch = d15.slice(12, 15);
  return {
    taxpayer_id: d15.slice(0, 9),
    kpp_code: d15.slice(9, 12),
    branch_code: branch,
    is_head_office: branch === '000',
    taxpayer_type: taxpayerType(d15[1] as string),
  };
}

function formatLegacy(d15: string): string {
  return `${d15.slice(0, 2)}.${d15.slice(2, 5)}.${d15.slice(5, 8)}.${d15[8]}-${d15.slice(9, 12)}.${d15.slice(12, 15)}`;
}

function luhnCheck(digits: string, what: string): Check {
  const ok = luhnValid(digits);
  return {
    name: 'luhn',
    ok,
    detail: ok
      ? `${what} pass the Luhn (mod 10) check`
      : `${what} fail the Luhn (mod 10) check: a digit is wrong or two are swapped`,
  };
}

/**
 * Verifies a normalized NPWP. 15 digits: the legacy layout and its Luhn check digit (digit 9). 16 digits
 * starting with 0: a company, government body or non-resident, `0` + the legacy 15 (PMK 112/PMK.03/2022),
 * Luhn on digits 1-10. Other 16 digits: a resident individual, whose NPWP is the NIK.
 */
export function verifyNpwp(digits: string, today: CalendarDate): NpwpVerification {
  if (digits.length === 15) {
    const checks = [luhnCheck(digits.slice(0, 9), 'digits 1-9')];
    return {
      ok: checks.every((c) => c.ok),
      format: 'legacy15',
      normalized: digits,
      formatted: formatLegacy(digits),
      parts: legacyParts(digits),
      checks,
      notes: [
        'Since 2024 this NPWP is written with 16 digits: 0 followed by these 15 (PMK 112/PMK.03/2022).',
        'Checks structure only; only DJP can confirm that the number is registered.',
      ],
    };
  }
  if (digits.startsWith('0')) {
    const legacy = digits.slice(1);
    const checks = [luhnCheck(digits.slice(0, 10), 'digits 1-10')];
    return {
      ok: checks.every((c) => c.ok),
      format: 'npwp16',
      normalized: digits,
      formatted: formatLegacy(legacy),
      parts: legacyParts(legacy),
      checks,
      notes: [
        `The 16-digit form of legacy NPWP ${formatLegacy(legacy)} (a company, government body or non-resident).`,
        'Branches are told apart by the NITKU, this number plus a 6-digit place-of-business suffix.',
        'Checks structure only; only DJP can confirm that the number is registered.',
      ],
    };
  }
  const nik = verifyNik(digits, {}, today);
  return {
    ok: nik.ok,
    format: 'nik16',
    normalized: digits,
    formatted: null,
    parts: null,
    nik,
    checks: nik.checks,
    notes: [
      'A resident individual uses the NIK as NPWP (PMK 112/PMK.03/2022), so the NIK rules apply.',
      ...nik.notes,
    ],
  };
}
