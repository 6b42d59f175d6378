/** NIK (16-digit Indonesian resident number) consistency checks: region, birth date, gender and serial. */
import { type CalendarDate, compareDates, formatIsoDate, isRealDate } from './dates.js';
import { currentCodeOf } from './former-codes.js';
import { kecamatanByKode, regionByKode } from './wilayah.js';

export type Gender = 'laki-laki' | 'perempuan';

/** One rule applied to the number, and what it found. */
export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export interface NikRegion {
  /** Digits 1-6 as a kecamatan code, PP.KK.CC. */
  kode: string;
  provinsi: string | null;
  kabupaten_kota: string | null;
  kecamatan: string | null;
  /** Today's kabupaten/kota code when the NIK carries one retired since it was issued. */
  current_kode: string | null;
}

export interface NikVerification {
  ok: boolean;
  format: 'nik16';
  nik: string;
  region: NikRegion;
  birth_date: string | null;
  gender: Gender | null;
  serial: string;
  agrees: { birth_date: boolean | null; gender: boolean | null };
  checks: Check[];
  notes: string[];
  note: string;
}

export const NIK_NOTE =
  'Checks consistency, not authenticity: the format, a possible birth date, a known province and serial, and ' +
  'agreement with the birth date and gender given. A NIK has no check digit; only Dukcapil can confirm that ' +
  'it was issued and to whom.';

const GENDER_WORDS: Readonly<Record<string, Gender>> = {
  L: 'laki-laki',
  LAKILAKI: 'laki-laki',
  M: 'laki-laki',
  MALE: 'laki-laki',
  P: 'perempuan',
  PEREMPUAN: 'perempuan',
  F: 'perempuan',
  FEMALE: 'perempuan',
};

/** L, LAKI-LAKI, M, MALE → laki-laki; P, PEREMPUAN, F, FEMALE → perempuan; any case, spaces or dashes. */
export function parseGender(text: string): Gender | undefined {
  return GENDER_WORDS[text.toUpperCase().replace(/[^A-Z]/g, '')];
}

/** DD-MM-YYYY (also with / or .) as written on a KTP; undefined when malformed or not a real date. */
export function parseDayMonthYear(text: string): CalendarDate | undefined {
  const m = /^(\d{2})[-/.](\d{2})[-/.](\d{4})$/.exec(text.trim());
  if (!m) return undefined;
  const date = { day: Number(m[1]), month: Number(m[2]), year: Number(m[3]) };
  return isRealDate(date.year, date.month, date.day) ? date : undefined;
}

export type NormalizedNik = { ok: true; digits: string } | { ok: false; message: string };

/** Removes the spaces people write between the groups; anything else that is not a digit is an error. */
export function normalizeNik(text: string): NormalizedNik {
  const digits = text.replace(/\s+/g, '');
  if (!/^\d*$/.test(digits)) return { ok: false, message: 'must contain only digits (spaces are allowed)' };
  if (digits.length !== 16) return { ok: false, message: `must be 16 digits, got ${digits.length}` };
  return { ok: true, digits };
}

interface BirthReading {
  date?: CalendarDate;
  gender?: Gender;
  check: Check;
  notes: string[];
}

/**
 * Digits 7-12, DDMMYY, with 40 added to the day for women. The two-digit year is read in the latest
 * century that does not put the birth after `today` (so in 2026, 25 → 2025 and 27 → 1927); a NIK is issued
 * after birth, so a future date is never the right reading.
 */
function readBirth(ddmmyy: string, today: CalendarDate): BirthReading {
  const rawDay = Number(ddmmyy.slice(0, 2));
  const month = Number(ddmmyy.slice(2, 4));
  const yy = Number(ddmmyy.slice(4, 6));
  const female = rawDay > 40;
  const day = female ? rawDay - 40 : rawDay;
  const fail = (detail: string): BirthReading => ({
    check: { name: 'birth_date', ok: false, detail },
    notes: [],
  });
  if (!((rawDay >= 1 && rawDay <= 31) || (rawDay >= 41 && rawDay <= 71))) {
    return fail(`day digits ${ddmmyy.slice(0, 2)} are neither 01-31 (men) nor 41-71 (women, day + 40)`);
  }
  if (month < 1 || month > 12) return fail(`month digits ${ddmmyy.slice(2, 4)} are not 01-12`);
  const gender: Gender = female ? 'perempuan' : 'laki-laki';
  const candidates = [2000 + yy, 1900 + yy]
    .map((year) => ({ year, month, day }))
    .filter((d) => isRealDate(d.year, d.month, d.day) && compareDates(d, today) <= 0);
  const date = candidates[0];
  const shown = `${String(day).padStart(2, '0')}-${ddmmyy.slice(2, 4)}-${ddmmyy.slice(4, 6)}`;
  if (!date) return { ...fail(`${shown} is not a calendar date`), gender };
  const notes = [
    `two-digit year ${ddmmyy.slice(4, 6)} read as ${date.year}: the latest century that does not put the birth date in the future`,
  ];
  if (female) notes.push(`day digits ${ddmmyy.slice(0, 2)} are ${day} + 40, which marks a woman`);
  return { date, gender, check: { name: 'birth_date', ok: true, detail: formatIsoDate(date) }, notes };
}

function readRegion(digits: string): { region: NikRegion; checks: Check[]; notes: string[] } {
  const pp = digits.slice(0, 2);
  const kabKode = `${pp}.${digits.slice(2, 4)}`;
  const kode = `${kabKode}.${digits.slice(4, 6)}`;
  const notes: string[] = [];
  const province = regionByKode(pp);
  const checks: Check[] = [
    {
      name: 'province',
      ok: province !== undefined,
      detail: province ? `${pp} ${province.nama}` : `${pp} is not a province code`,
    },
    {
      name: 'region_code',
      ok: digits.slice(2, 4) !== '00' && digits.slice(4, 6) !== '00',
      detail: `${kode}: kabupaten/kota and kecamatan numbers start at 01`,
    },
  ];
  const region: NikRegion = {
    kode,
    provinsi: province?.nama ?? null,
    kabupaten_kota: null,
    kecamatan: null,
    current_kode: null,
  };
  if (!province) return { region, checks, notes };

  const kab = regionByKode(kabKode);
  const movedTo = kab ? undefined : currentCodeOf(kabKode);
  const moved = movedTo ? regionByKode(movedTo) : undefined;
  if (kab) {
    region.kabupaten_kota = kab.nama;
    const kecamatan = kecamatanByKode(kode);
    if (kecamatan) region.kecamatan = kecamatan.nama;
    else
      notes.push(`kecamatan ${kode} is not in the 2025 list; it may be an older code, which is not an error`);
  } else if (moved?.induk) {
    const newProvince = regionByKode(moved.induk);
    region.kabupaten_kota = moved.nama;
    region.provinsi = newProvince?.nama ?? region.provinsi;
    region.current_kode = moved.kode;
    notes.push(
      `${kabKode} is the code ${moved.nama} had before the 2022 Papua split; today it is ${moved.kode} in ` +
        `${newProvince?.nama ?? moved.induk}. NIKs keep the code they were issued with. Its kecamatan were ` +
        'renumbered, so the kecamatan is not named.',
    );
  } else {
    notes.push(
      `kabupaten/kota ${kabKode} is not in the 2025 list; it may be a code retired by a split or renumbering, ` +
        'so the region is unknown, which does not make the NIK invalid',
    );
  }
  return { region, checks, notes };
}

export interface NikClaims {
  birthDate?: CalendarDate;
  gender?: Gender;
}

/**
 * Verifies a normalized 16-digit NIK (`PP KK CC DDMMYY SSSS`). `ok` is true when every check passes and
 * any birth date or gender given agrees with the number.
 */
export function verifyNik(digits: string, claims: NikClaims = {}, today: CalendarDate): NikVerification {
  const { region, checks, notes } = readRegion(digits);
  const birth = readBirth(digits.slice(6, 12), today);
  const serial = digits.slice(12, 16);
  checks.push(birth.check, {
    name: 'serial',
    ok: serial !== '0000',
    detail: serial === '0000' ? 'serial 0000 is never issued' : `serial ${serial}`,
  });
  notes.push(...birth.notes);

  const agrees: NikVerification['agrees'] = { birth_date: null, gender: null };
  if (claims.birthDate) {
    const given = claims.birthDate;
    const read = birth.date;
    agrees.birth_date =
      read !== undefined &&
      read.day === given.day &&
      read.month === given.month &&
      read.year % 100 === given.year % 100;
    if (agrees.birth_date && read && read.year !== given.year) {
      notes.push(`the NIK holds only two year digits; the birth_date given puts them in ${given.year}`);
    }
  }
  if (claims.gender) agrees.gender = birth.gender !== undefined && birth.gender === claims.gender;

  return {
    ok: checks.every((c) => c.ok) && agrees.birth_date !== false && agrees.gender !== false,
    format: 'nik16',
    nik: digits,
    region,
    birth_date: birth.date ? formatIsoDate(birth.date) : null,
    gender: birth.gender ?? null,
    serial,
    agrees,
    checks,
    notes,
    note: NIK_NOTE,
  };
}
