// The free lookup routes over HTTP (wilayah, prayer-times, verify-nik, verify-npwp, qris, terbilang) and
// their OpenAPI description.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKasir, type TestKasir } from '../../test/support/app.js';
import type { NikVerification } from '../lookups/nik.js';
import type { NpwpVerification } from '../lookups/npwp.js';
import type { DayTimes, MethodDescription } from '../lookups/prayer-times.js';
import { crc16, type QrisInfo } from '../lookups/qris.js';
import type { Region } from '../lookups/wilayah.js';

let kasir: TestKasir;
beforeAll(async () => {
  kasir = await startKasir('sqlite');
});
afterAll(async () => {
  await kasir.close();
});

interface ErrorBody {
  error: {
    code: string;
    message: string;
    details?: Array<{ field: string; message: string } & Record<string, unknown>>;
  };
}

interface WilayahBody {
  source: string;
  scope: string;
  count: number;
  results: Region[];
  suggestions?: Array<{ kode: string; nama: string }>;
}

interface PrayerBody {
  location: Partial<Region> & { utc_offset: number; timezone: string | null };
  method: MethodDescription;
  madhab: string;
  note: string;
  date: string;
  times: DayTimes;
  days?: Array<{ date: string; times: DayTimes }>;
}

type QrisBody = QrisInfo & {
  note: string;
  payload?: string;
  source?: QrisInfo;
  with_amount?: QrisInfo & { payload: string };
};

interface TerbilangBody {
  number: number;
  formatted: string;
  terbilang: string;
  rupiah: string;
}

async function get<T>(
  path: string,
  params: Record<string, string> = {},
): Promise<{ status: number; body: T }> {
  const res = await kasir.app.request(`${path}?${new URLSearchParams(params)}`);
  return { status: res.status, body: (await res.json()) as T };
}

async function expectInvalid(path: string, params: Record<string, string>, field: string, message: RegExp) {
  const { status, body } = await get<ErrorBody>(path, params);
  expect(status).toBe(400);
  const error = body.error;
  expect(error.code).toBe('invalid_input');
  const detail = error.details?.find((d) => d.field === field);
  expect(detail, JSON.stringify(error)).toBeDefined();
  expect(detail?.message).toMatch(message);
  return error;
}

describe('GET /v1/tools/wilayah', () => {
  const path = '/v1/tools/wilayah';

  it('lists the 38 provinces by default, needing no key', async () => {
    const { status, body } = await get<WilayahBody>(path);
    expect(status).toBe(200);
    expect(body.count).toBe(38);
    expect(body.scope).toMatch(/38 provinsi and 514 kabupaten\/kota/);
    expect(body.source).toMatch(/Kepmendagri/);
    expect(body.results[0]).toEqual({
      kode: '11',
      nama: 'Aceh',
      level: 'provinsi',
      induk: '11',
      ibukota: 'Banda Aceh',
      lat: expect.any(Number),
      lng: expect.any(Number),
      timezone: 'WIB',
      utc_offset: 7,
      luas_km2: expect.any(Number),
      penduduk: expect.any(Number),
    });
  });

  it('lists all 514 kabupaten/kota with level=kabupaten_kota', async () => {
    expect((await get<WilayahBody>(path, { level: 'kabupaten_kota' })).body.count).toBe(514);
  });

  it('returns a provinsi with its kabupaten/kota for a provinsi kode', async () => {
    const { body } = await get<WilayahBody>(path, { kode: '31' });
    expect(body.results.map((r) => r.kode)).toEqual([
      '31',
      '31.01',
      '31.71',
      '31.72',
      '31.73',
      '31.74',
      '31.75',
    ]);
  });

  it('returns one kabupaten/kota for its kode, with or without the dot', async () => {
    for (const kode of ['32.73', '3273']) {
      const { body } = await get<WilayahBody>(path, { kode });
      expect(body.results).toHaveLength(1);
      expect(body.results[0]).toMatchObject({ nama: 'Kota Bandung', induk: '32', timezone: 'WIB' });
    }
  });

  it('searches by name with kota first', async () => {
    const { body } = await get<WilayahBody>(path, { q: 'bogor' });
    expect(body.results.map((r) => r.nama)).toEqual(['Kota Bogor', 'Kabupaten Bogor']);
    expect((await get<WilayahBody>(path, { q: 'Kab. Bogor' })).body.results[0]?.nama).toBe('Kabupaten Bogor');
    expect((await get<WilayahBody>(path, { q: 'makasar' })).body.results[0]?.nama).toBe('Kota Makassar');
  });

  it('suggests names when q matches nothing', async () => {
    const { status, body } = await get<WilayahBody>(path, { q: 'Bandoeng Baratte' });
    expect(status).toBe(200);
    expect(body.count).toBe(0);
    expect(body.suggestions?.map((s) => s.kode)).toContain('32.17');
  });

  it('lists a province’s kabupaten/kota with induk', async () => {
    const { body } = await get<WilayahBody>(path, { induk: '34' });
    expect(body.count).toBe(5);
    expect(body.results.every((r) => r.induk === '34')).toBe(true);
  });

  it('refuses bad codes and answers 404 for codes that do not exist', async () => {
    await expectInvalid(path, { kode: 'abc' }, 'kode', /provinsi code/);
    await expectInvalid(path, { kode: '32.73.01' }, 'kode', /kecamatan codes are not listed/);
    await expectInvalid(path, { induk: '32.73' }, 'induk', /2-digit provinsi code/);
    await expectInvalid(path, { level: 'desa' }, 'level', /provinsi or kabupaten_kota/);
    await expectInvalid(path, { q: 'bogor', kode: '32' }, 'kode', /only one of/);
    const { status, body } = await get<ErrorBody>(path, { kode: '99' });
    expect(status).toBe(404);
    expect(body.error.code).toBe('not_found');
  });
});

describe('GET /v1/tools/prayer-times', () => {
  const path = '/v1/tools/prayer-times';

  it('computes Kemenag times for coordinates (Jakarta, 4 March 2026, as published)', async () => {
    const { status, body } = await get<PrayerBody>(path, {
      lat: '-6.1701',
      lng: '106.8311',
      date: '2026-03-04',
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      location: { lat: -6.1701, lng: 106.8311, utc_offset: 7, timezone: 'WIB', nearest: { kode: '31.71' } },
      method: { id: 'kemenag', fajr_angle: 20, isha: '18°', ihtiyati: { fajr: 2, dhuhr: 3, maghrib: 3 } },
      madhab: 'shafi',
      date: '2026-03-04',
      times: { imsak: '04:33', fajr: '04:43', dhuhr: '12:08', asr: '15:09', maghrib: '18:14', isha: '19:23' },
    });
    expect(body.note).toMatch(/within 1-2 minutes/);
    expect(body.days).toBeUndefined();
  });

  it('resolves a city through wilayah and stays within 2 minutes of the table on the centroid', async () => {
    const { body } = await get<PrayerBody>(path, { city: 'Jakarta Pusat', date: '2026-03-04' });
    expect(body.location).toMatchObject({
      kode: '31.71',
      nama: 'Kota Administrasi Jakarta Pusat',
      utc_offset: 7,
    });
    const minutes = (t: string | null) => Number(t?.slice(0, 2)) * 60 + Number(t?.slice(3));
    expect(Math.abs(minutes(body.times.maghrib) - minutes('18:14'))).toBeLessThanOrEqual(2);
  });

  it('accepts a code, a typo and a provinsi (its capital)', async () => {
    expect((await get<PrayerBody>(path, { city: '73.71', date: '2025-01-01' })).body.location.nama).toBe(
      'Kota Makassar',
    );
    const typo = await get<PrayerBody>(path, { city: 'Makasar', date: '2025-01-01' });
    expect(typo.body.location.nama).toBe('Kota Makassar');
    expect(typo.body.note).toMatch(/read as Kota Makassar/);
    const province = await get<PrayerBody>(path, { city: 'Jawa Barat', date: '2025-01-01' });
    expect(province.body.location.nama).toBe('Kota Bandung');
    expect(province.body.note).toMatch(/its capital, Kota Bandung/);
  });

  it('uses Indonesian time zones for coordinates in Indonesia, even where lng/15 disagrees (Banda Aceh)', async () => {
    const { body } = await get<PrayerBody>(path, { lat: '5.55', lng: '95.32', date: '2025-01-01' });
    expect(body.location).toMatchObject({ utc_offset: 7, timezone: 'WIB' });
    const makkah = await get<PrayerBody>(path, {
      lat: '21.4225',
      lng: '39.8262',
      date: '2025-01-01',
      method: 'makkah',
    });
    expect(makkah.body.location).toMatchObject({ utc_offset: 3, timezone: null });
  });

  it('returns one entry per day for days > 1', async () => {
    const { body } = await get<PrayerBody>(path, { city: 'Bandung', date: '2025-12-30', days: '3' });
    expect(body.times).toBeUndefined();
    expect(body.date).toBe('2025-12-30');
    expect(body.days?.map((d) => d.date)).toEqual(['2025-12-30', '2025-12-31', '2026-01-01']);
    expect(Object.keys(body.days?.[0]?.times ?? {})).toEqual([
      'imsak',
      'fajr',
      'sunrise',
      'dhuhr',
      'asr',
      'maghrib',
      'isha',
    ]);
  });

  it('changes asr only with madhab=hanafi, and honours tz', async () => {
    const base = { lat: '-6.2', lng: '106.8', date: '2025-05-05' };
    const shafi = (await get<PrayerBody>(path, base)).body.times;
    const hanafi = (await get<PrayerBody>(path, { ...base, madhab: 'hanafi' })).body.times;
    expect(String(hanafi.asr) > String(shafi.asr)).toBe(true);
    expect({ ...hanafi, asr: '' }).toEqual({ ...shafi, asr: '' });
    const utc = (await get<PrayerBody>(path, { ...base, tz: '0' })).body;
    expect(utc.location.utc_offset).toBe(0);
    expect(Number(utc.times.dhuhr?.slice(0, 2))).toBe(Number(shafi.dhuhr?.slice(0, 2)) - 7);
  });

  it('returns null where the sun never reaches the angle', async () => {
    const { body } = await get<PrayerBody>(path, {
      lat: '64.15',
      lng: '-21.94',
      date: '2025-06-21',
      method: 'mwl',
    });
    expect(body.times.isha).toBeNull();
    expect(body.times.fajr).toBeNull();
  });

  it('refuses bad input with the field and what is wrong', async () => {
    await expectInvalid(path, { lat: '91', lng: '100' }, 'lat', /from -90 to 90/);
    await expectInvalid(path, { lat: '-6', lng: '200' }, 'lng', /from -180 to 180/);
    await expectInvalid(path, { lat: '-6' }, 'lng', /required with lat/);
    await expectInvalid(path, { city: 'Bandung', days: '0' }, 'days', /1 to 31/);
    await expectInvalid(path, { city: 'Bandung', days: '32' }, 'days', /1 to 31/);
    await expectInvalid(
      path,
      { city: 'Bandung', method: 'foo' },
      'method',
      /kemenag, mwl, isna, egypt, makkah, karachi/,
    );
    await expectInvalid(path, { city: 'Bandung', date: '2025-02-30' }, 'date', /not a calendar date/);
    await expectInvalid(path, { city: 'Bandung', date: '30-01-2025' }, 'date', /YYYY-MM-DD/);
    await expectInvalid(path, {}, 'city', /city .* or lat and lng/);
    await expectInvalid(path, { city: 'Bandung', lat: '1', lng: '1' }, 'city', /not both/);
    const error = await expectInvalid(path, { city: 'Xyzzyville Utara' }, 'city', /unknown city .*closest:/);
    expect(error.details?.[0]?.suggestions).toHaveLength(5);
  });
});

describe('GET /v1/tools/verify-nik', () => {
  const path = '/v1/tools/verify-nik';

  it('reads a NIK and compares the birth date and gender given', async () => {
    const { status, body } = await get<NikVerification>(path, {
      nik: '3171 0152 0385 0002',
      birth_date: '12-03-1985',
      gender: 'P',
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      ok: true,
      format: 'nik16',
      region: {
        kode: '31.71.01',
        provinsi: 'Daerah Khusus Ibukota Jakarta',
        kabupaten_kota: 'Kota Administrasi Jakarta Pusat',
      },
      birth_date: '1985-03-12',
      gender: 'perempuan',
      agrees: { birth_date: true, gender: true },
    });
    expect(body.note).toMatch(/not authenticity/);
    expect(Array.isArray(body.notes)).toBe(true);
  });

  it('answers ok=false with the failing check, not 400, for an impossible birth date', async () => {
    const { status, body } = await get<NikVerification>(path, { nik: '3171013102850001' });
    expect(status).toBe(200);
    expect(body.ok).toBe(false);
    expect(body.checks.find((c) => c.name === 'birth_date')?.ok).toBe(false);
  });

  it('refuses a 15-digit NIK and bad claims', async () => {
    await expectInvalid(path, { nik: '317101120385000' }, 'nik', /16 digits, got 15/);
    await expectInvalid(path, {}, 'nik', /required/);
    await expectInvalid(
      path,
      { nik: '3171011203850001', birth_date: '31-02-1985' },
      'birth_date',
      /real date/,
    );
    await expectInvalid(path, { nik: '3171011203850001', gender: 'X' }, 'gender', /L, LAKI-LAKI/);
  });
});

describe('GET /v1/tools/verify-npwp', () => {
  const path = '/v1/tools/verify-npwp';

  it('checks a legacy 15-digit NPWP', async () => {
    const { body } = await get<NpwpVerification>(path, { npwp: '01.312.166.0-091.000' });
    expect(body).toMatchObject({
      ok: true,
      format: 'legacy15',
      normalized: '013121660091000',
      parts: { taxpayer_id: '013121660', kpp_code: '091', branch_code: '000', is_head_office: true },
      checks: [{ name: 'luhn', ok: true }],
    });
    expect((await get<NpwpVerification>(path, { npwp: '01.451.869.7-054.000' })).body.ok).toBe(false);
  });

  it('reads a 16-digit NPWP as the NIK of its holder', async () => {
    const { body } = await get<NpwpVerification>(path, { npwp: '3171011203850001' });
    expect(body).toMatchObject({
      ok: true,
      format: 'nik16',
      nik: { gender: 'laki-laki', birth_date: '1985-03-12' },
    });
  });

  it('refuses the wrong number of digits', async () => {
    await expectInvalid(path, { npwp: '01.312.166.0-091' }, 'npwp', /15 or 16 digits, got 12/);
  });
});

describe('GET /v1/tools/qris', () => {
  const path = '/v1/tools/qris';
  const tlv = (tag: string, value: string) => `${tag}${String(value.length).padStart(2, '0')}${value}`;
  const body =
    tlv('00', '01') +
    tlv('01', '11') +
    tlv('26', tlv('00', 'ID.CO.SHOPEE.WWW') + tlv('01', '936009180000012345') + tlv('03', 'UMI')) +
    tlv('51', tlv('00', 'ID.CO.QRIS.WWW') + tlv('02', 'ID1025411846005')) +
    tlv('52', '5812') +
    tlv('53', '360') +
    tlv('58', 'ID') +
    tlv('59', 'KEDAI KOPI') +
    tlv('60', 'BANDUNG');
  const payload = `${body}6304${crc16(`${body}6304`)}`;

  it('parses a payload and verifies the CRC', async () => {
    const { status, body: info } = await get<QrisBody>(path, { payload });
    expect(status).toBe(200);
    expect(info).toMatchObject({
      valid_crc: true,
      type: 'static',
      merchant_name: 'KEDAI KOPI',
      merchant_city: 'BANDUNG',
      country: 'ID',
      currency: '360',
      amount: null,
      mcc: '5812',
      nmid: 'ID1025411846005',
      acquirer: { name: 'ShopeePay', nns: '0918' },
    });
    expect(info.with_amount).toBeUndefined();
  });

  it('sets an amount and returns the new payload, re-parsed', async () => {
    const { body: info } = await get<QrisBody>(path, { payload, amount: '25000' });
    expect(info.with_amount).toMatchObject({
      valid_crc: true,
      type: 'dynamic',
      amount: '25000',
      merchant_name: 'KEDAI KOPI',
    });
    expect(info.with_amount?.payload).toContain('540525000');
  });

  it('with an amount, the top-level fields describe the dynamic code with its amount, and source the one sent', async () => {
    const { body: info } = await get<QrisBody>(path, { payload, amount: '25000' });
    expect(info).toMatchObject({
      valid_crc: true,
      type: 'dynamic',
      amount: '25000',
      merchant_name: 'KEDAI KOPI',
    });
    expect(info.payload).toBe(info.with_amount?.payload);
    expect(info.payload).toContain('010212');
    expect(info.source).toMatchObject({ type: 'static', amount: null, valid_crc: true });
  });

  it('refuses an amount on a payload whose CRC is wrong, and garbage with the offset', async () => {
    const broken = payload.replace('KEDAI', 'KEDAY');
    expect((await get<QrisBody>(path, { payload: broken })).body.valid_crc).toBe(false);
    await expectInvalid(path, { payload: broken, amount: '1000' }, 'payload', /CRC is wrong/);
    await expectInvalid(path, { payload, amount: '1.000' }, 'amount', /plain digits/);
    const error = await expectInvalid(path, { payload: payload.slice(0, 30) }, 'payload', /truncated/);
    expect(error.details?.[0]?.offset).toBe(12);
    expect(
      (await expectInvalid(path, { payload: 'not a qr' }, 'payload', /2-digit tag/)).details?.[0]?.offset,
    ).toBe(0);
  });
});

describe('GET /v1/tools/terbilang', () => {
  const path = '/v1/tools/terbilang';

  it('spells a number with Indonesian separators; rupiah capitalised per word by default', async () => {
    const { status, body } = await get<TerbilangBody>(path, { n: '1.250.000' });
    expect(status).toBe(200);
    expect(body).toEqual({
      number: 1250000,
      formatted: '1.250.000',
      terbilang: 'satu juta dua ratus lima puluh ribu',
      rupiah: 'Satu Juta Dua Ratus Lima Puluh Ribu Rupiah',
    });
    expect((await get<TerbilangBody>(path, { n: '1250000', case: 'sentence' })).body.rupiah).toBe(
      'Satu juta dua ratus lima puluh ribu rupiah',
    );
  });

  it('spells negatives and the largest number', async () => {
    expect((await get<TerbilangBody>(path, { n: '-15' })).body.terbilang).toBe('minus lima belas');
    expect((await get<TerbilangBody>(path, { n: '999.999.999.999.999' })).body.terbilang).toMatch(
      /^sembilan ratus .* triliun/,
    );
  });

  it('refuses decimals, words and numbers too large', async () => {
    await expectInvalid(path, { n: '1,5' }, 'n', /decimals are not spelled/);
    await expectInvalid(path, { n: 'seratus' }, 'n', /whole number/);
    await expectInvalid(path, { n: '1000000000000000' }, 'n', /999 triliun/);
    await expectInvalid(path, { n: '5', case: 'upper' }, 'case', /title, sentence or lower/);
  });
});

describe('OpenAPI', () => {
  it('documents the six lookups under the lookups tag', async () => {
    const res = await kasir.app.request('/openapi.json');
    const doc = (await res.json()) as {
      paths: Record<string, { get?: { tags?: string[]; description?: string } }>;
    };
    for (const name of ['wilayah', 'prayer-times', 'verify-nik', 'verify-npwp', 'qris', 'terbilang']) {
      expect(doc.paths[`/v1/tools/${name}`]?.get?.tags).toEqual(['lookups']);
    }
    expect(doc.paths['/v1/tools/prayer-times']?.get?.description).toMatch(
      /days` > 1 .*array of `\{ date, times \}`/,
    );
  });
});
