// verifyNik: what a NIK says (region, birth date, gender, serial), its refusals, and the inputs it tolerates.
import { describe, expect, it } from 'vitest';
import { normalizeNik, parseDayMonthYear, parseGender, verifyNik } from './nik.js';

// Made-up numbers built from the published layout PP KK CC DDMMYY SSSS (python-stdnum id/nik.py), not real people.
const TODAY = { year: 2026, month: 11, day: 22 };
const verify = (nik: string, claims = {}) => verifyNik(nik, claims, TODAY);

describe('verifyNik', () => {
  it('reads region, birth date, gender and serial of a well-formed NIK', () => {
    const r = verify('3171011203850001');
    expect(r).toMatchObject({
      ok: true,
      format: 'nik16',
      region: {
        kode: '31.71.01',
        provinsi: 'Daerah Khusus Ibukota Jakarta',
        kabupaten_kota: 'Kota Administrasi Jakarta Pusat',
        kecamatan: 'Gambir',
        current_kode: null,
      },
      birth_date: '1985-03-12',
      gender: 'laki-laki',
      serial: '0001',
      agrees: { birth_date: null, gender: null },
    });
    expect(r.note).toMatch(/consistency, not authenticity/);
    expect(r.checks.every((c) => c.ok)).toBe(true);
  });

  it('reads day + 40 as a woman', () => {
    const r = verify('3171015203850002');
    expect(r.birth_date).toBe('1985-03-12');
    expect(r.gender).toBe('perempuan');
    expect(r.notes.join(' ')).toMatch(/52 are 12 \+ 40/);
  });

  it('puts the two-digit year in the latest century that is not in the future', () => {
    expect(verify('3171011203250001').birth_date).toBe('2025-03-12');
    expect(verify('3171011203270001').birth_date).toBe('1927-03-12');
    // 1 December 2026 is after "today" (22 November 2026), so 26 reads as 1926.
    expect(verify('3171010112260001').birth_date).toBe('1926-12-01');
    expect(verify('3171012111260001').birth_date).toBe('2026-11-21');
  });

  it('accepts 29 February only in a leap year', () => {
    expect(verify('3171012902000001')).toMatchObject({ ok: true, birth_date: '2000-02-29' });
    const r = verify('3171012902010001');
    expect(r.ok).toBe(false);
    expect(r.birth_date).toBeNull();
    expect(r.checks.find((c) => c.name === 'birth_date')).toMatchObject({ ok: false });
  });

  it.each([
    ['3171013102850001', /not a calendar date/],
    ['3171013202850001', /neither 01-31/],
    ['3171017203850001', /neither 01-31/],
    ['3171011213850001', /not 01-12/],
  ])('refuses the impossible birth date in %s', (nik, detail) => {
    const r = verify(nik);
    expect(r.ok).toBe(false);
    expect(r.checks.find((c) => c.name === 'birth_date')?.detail).toMatch(detail);
  });

  it('refuses serial 0000, kabupaten 00 and an unknown province', () => {
    expect(verify('3171011203850000').ok).toBe(false);
    expect(verify('3100011203850001').ok).toBe(false);
    const unknown = verify('9901011203850001');
    expect(unknown.ok).toBe(false);
    expect(unknown.checks.find((c) => c.name === 'province')).toMatchObject({ ok: false });
  });

  it('resolves a pre-2022 Papua code to today’s region without failing (Merauke 91.01 → 93.01)', () => {
    const r = verify('9101011203850001');
    expect(r.ok).toBe(true);
    expect(r.region).toMatchObject({
      kode: '91.01.01',
      kabupaten_kota: 'Kabupaten Merauke',
      provinsi: 'Papua Selatan',
      current_kode: '93.01',
      kecamatan: null,
    });
    expect(r.notes.join(' ')).toMatch(/before the 2022 Papua split/);
  });

  it('treats an unknown kabupaten/kota code as a note, not a failure', () => {
    const r = verify('3199011203850001');
    expect(r.ok).toBe(true);
    expect(r.region.kabupaten_kota).toBeNull();
    expect(r.notes.join(' ')).toMatch(/not in the 2025 list/);
  });

  it('compares the birth date and gender given', () => {
    const male = { year: 1985, month: 3, day: 12 };
    expect(verify('3171011203850001', { birthDate: male, gender: 'laki-laki' })).toMatchObject({
      ok: true,
      agrees: { birth_date: true, gender: true },
    });
    const wrong = verify('3171011203850001', { birthDate: { ...male, day: 13 }, gender: 'perempuan' });
    expect(wrong).toMatchObject({ ok: false, agrees: { birth_date: false, gender: false } });
  });

  it('agrees on a birth date in the other century but says the NIK holds only two digits', () => {
    const r = verify('3171011203250001', { birthDate: { year: 1925, month: 3, day: 12 } });
    expect(r.agrees.birth_date).toBe(true);
    expect(r.notes.join(' ')).toMatch(/two year digits/);
  });
});

describe('NIK inputs', () => {
  it('tolerates spaces and counts digits', () => {
    expect(normalizeNik(' 3171 0112 0385 0001 ')).toEqual({ ok: true, digits: '3171011203850001' });
    expect(normalizeNik('317101120385000')).toEqual({ ok: false, message: 'must be 16 digits, got 15' });
    expect(normalizeNik('3171-0112-0385-0001').ok).toBe(false);
  });

  it.each([
    ['L', 'laki-laki'],
    ['laki-laki', 'laki-laki'],
    ['LAKI LAKI', 'laki-laki'],
    ['M', 'laki-laki'],
    ['Male', 'laki-laki'],
    ['P', 'perempuan'],
    ['PEREMPUAN', 'perempuan'],
    ['f', 'perempuan'],
    ['FEMALE', 'perempuan'],
  ])('reads gender %s', (text, gender) => {
    expect(parseGender(text)).toBe(gender);
  });

  it('refuses an unknown gender word and reads DD-MM-YYYY dates that exist', () => {
    expect(parseGender('X')).toBeUndefined();
    expect(parseDayMonthYear('12-03-1985')).toEqual({ year: 1985, month: 3, day: 12 });
    expect(parseDayMonthYear('31-02-1985')).toBeUndefined();
    expect(parseDayMonthYear('1985-03-12')).toBeUndefined();
  });
});
