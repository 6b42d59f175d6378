/** The six free Indonesian lookups, GET /v1/tools/{wilayah,prayer-times,verify-nik,verify-npwp,qris,terbilang}. */
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { AppEnv } from '../http/env.js';
import { ApiError, invalidInput } from '../http/errors.js';
import { pickErrors } from '../http/openapi.js';
import { addDays, type CalendarDate, dateAtOffset, formatIsoDate, parseIsoDate } from '../lookups/dates.js';
import { normalizeNik, parseDayMonthYear, parseGender, verifyNik } from '../lookups/nik.js';
import { normalizeNpwp, verifyNpwp } from '../lookups/npwp.js';
import {
  describeMethod,
  MADHABS,
  offsetFromLongitude,
  PRAYER_METHODS,
  prayerTimes,
} from '../lookups/prayer-times.js';
import { amountProblem, parseQris, QrisParseError, setQrisAmount } from '../lookups/qris.js';
import { type RegionMatch, searchRegions, suggestRegions } from '../lookups/region-search.js';
import {
  parseWholeNumber,
  RUPIAH_CASES,
  rupiahPhrase,
  TERBILANG_MAX,
  terbilang,
} from '../lookups/terbilang.js';
import {
  nearestRegion,
  normalizeKode,
  provinces,
  type Region,
  regionByKode,
  regionsOfProvince,
  WILAYAH_SCOPE,
  WILAYAH_SOURCE,
} from '../lookups/wilayah.js';

const TAGS = ['lookups'];
const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

/** NIK birth dates are judged against today's date in Jakarta (WIB). */
const todayInIndonesia = () => dateAtOffset(7);

// ---------------------------------------------------------------- shared schemas

const RegionSchema = z
  .object({
    kode: z.string().openapi({ example: '32.73' }),
    nama: z.string().openapi({ example: 'Kota Bandung' }),
    level: z.enum(['provinsi', 'kabupaten_kota']),
    induk: z
      .string()
      .openapi({ description: 'Parent provinsi code; for a provinsi, its own code', example: '32' }),
    ibukota: z.string(),
    lat: z.number().openapi({ description: 'Centroid of the area' }),
    lng: z.number(),
    timezone: z.enum(['WIB', 'WITA', 'WIT']),
    utc_offset: z.number(),
    luas_km2: z.number(),
    penduduk: z.number().int(),
  })
  .openapi('Region');

const CheckSchema = z
  .object({ name: z.string(), ok: z.boolean(), detail: z.string() })
  .openapi('LookupCheck');

// ---------------------------------------------------------------- wilayah

const WilayahQuery = z.object({
  kode: z.string().optional().openapi({
    description:
      'Exact code: 2 digits for a provinsi (also lists its kabupaten/kota), PP.KK for a kabupaten/kota',
    example: '32.73',
  }),
  q: z.string().optional().openapi({
    description:
      'Name search, best match first; kota before kabupaten on ties; tolerant of case, spacing, "Kab."/"Kota" and small typos; knows abbreviations (Jabar), colloquial (Solo) and former names (Ujung Pandang)',
    example: 'Bandung',
  }),
  induk: z
    .string()
    .optional()
    .openapi({ description: 'A provinsi code: list its kabupaten/kota', example: '32' }),
  level: z.enum(['provinsi', 'kabupaten_kota'], { error: 'must be provinsi or kabupaten_kota' }).optional(),
  limit: z.coerce
    .number({ error: 'must be an integer from 1 to 50' })
    .int({ error: 'must be an integer from 1 to 50' })
    .min(1, { error: 'must be an integer from 1 to 50' })
    .max(50, { error: 'must be an integer from 1 to 50' })
    .optional()
    .openapi({ description: 'Most results for q (default 10)', example: 10 }),
});

const WilayahSchema = z
  .object({
    source: z.string(),
    scope: z.string(),
    count: z.number().int(),
    results: z.array(RegionSchema),
    suggestions: z
      .array(z.object({ kode: z.string(), nama: z.string() }))
      .optional()
      .openapi({ description: 'Closest names, when q matched nothing' }),
  })
  .openapi('WilayahResult');

const wilayahRoute = createRoute({
  method: 'get',
  path: '/v1/tools/wilayah',
  tags: TAGS,
  summary: 'Indonesian provinces and kabupaten/kota by code or name (free)',
  description:
    'Kemendagri 2025 codes (38 provinsi, 514 kabupaten/kota) with capital, centroid, time zone, area and ' +
    'population. Give one of `kode`, `q` or `induk`; with none, the 38 provinces (or, with ' +
    '`level=kabupaten_kota`, all 514 kabupaten/kota). No key, no charge.',
  request: { query: WilayahQuery },
  responses: {
    200: json(WilayahSchema, 'Matching regions'),
    ...pickErrors(400, 404, 429),
  },
});

function provinceKode(field: string, text: string): string {
  const kode = normalizeKode(text);
  if (kode?.length !== 2) {
    throw invalidInput([{ field, message: `must be a 2-digit provinsi code, e.g. 32 (got "${text}")` }]);
  }
  return kode;
}

function mountWilayah(app: OpenAPIHono<AppEnv>): void {
  app.openapi(wilayahRoute, (c) => {
    const { kode, q, induk, level, limit } = c.req.valid('query');
    const given = [kode, q, induk].filter((v) => v !== undefined).length;
    if (given > 1) {
      throw invalidInput([{ field: 'kode', message: 'give only one of kode, q and induk' }]);
    }
    const byLevel = (list: readonly Region[]) => (level ? list.filter((r) => r.level === level) : [...list]);
    const answer = (results: Region[], suggestions?: Array<{ kode: string; nama: string }>) =>
      c.json(
        {
          source: WILAYAH_SOURCE,
          scope: WILAYAH_SCOPE,
          count: results.length,
          results,
          ...(suggestions ? { suggestions } : {}),
        },
        200,
      );

    if (kode !== undefined) {
      const normalized = normalizeKode(kode);
      if (!normalized || normalized.length > 5) {
        const message =
          normalized && normalized.length > 5
            ? 'kecamatan codes are not listed here: wilayah covers provinsi (PP) and kabupaten/kota (PP.KK)'
            : `must be a provinsi code (PP) or a kabupaten/kota code (PP.KK), e.g. 32 or 32.73 (got "${kode}")`;
        throw invalidInput([{ field: 'kode', message }]);
      }
      const region = regionByKode(normalized);
      if (!region) throw new ApiError('not_found', `no provinsi or kabupaten/kota has kode ${normalized}`);
      const list = region.level === 'provinsi' ? [region, ...regionsOfProvince(region.kode)] : [region];
      return answer(byLevel(list));
    }
    if (induk !== undefined) {
      const parent = provinceKode('induk', induk);
      if (!regionByKode(parent)) throw new ApiError('not_found', `no provinsi has kode ${parent}`);
      return answer(byLevel(regionsOfProvince(parent)));
    }
    if (q !== undefined) {
      if (q.trim() === '') throw invalidInput([{ field: 'q', message: 'must not be empty' }]);
      const matches = searchRegions(q, { level, limit: limit ?? 10 });
      if (matches.length > 0) return answer(matches.map((m) => m.region));
      return answer(
        [],
        suggestRegions(q).map((r) => ({ kode: r.kode, nama: r.nama })),
      );
    }
    return answer(level === 'kabupaten_kota' ? byLevel(allKabupatenKota()) : [...provinces()]);
  });
}

function allKabupatenKota(): Region[] {
  return provinces().flatMap((p) => regionsOfProvince(p.kode));
}

// ---------------------------------------------------------------- prayer-times

const numberIn = (min: number, max: number, what: string) => {
  const message = `must be ${what} from ${min} to ${max}`;
  return z.coerce.number({ error: message }).min(min, { error: message }).max(max, { error: message });
};

const PrayerQuery = z.object({
  city: z.string().optional().openapi({
    description:
      'A kabupaten/kota or provinsi name or code, resolved through wilayah (a provinsi means its capital)',
    example: 'Jakarta',
  }),
  lat: numberIn(-90, 90, 'a latitude').optional().openapi({ example: -6.1701 }),
  lng: numberIn(-180, 180, 'a longitude').optional().openapi({ example: 106.8311 }),
  tz: numberIn(-12, 14, 'a UTC offset in hours').optional().openapi({
    description:
      'UTC offset in hours for lat/lng; default: the zone of the nearest kabupaten/kota inside Indonesia, else longitude / 15',
    example: 7,
  }),
  date: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'must be a date as YYYY-MM-DD' })
    .optional()
    .openapi({
      description: 'First day, YYYY-MM-DD; default today in the target time zone',
      example: '2026-03-04',
    }),
  days: z.coerce
    .number({ error: 'must be an integer from 1 to 31' })
    .int({ error: 'must be an integer from 1 to 31' })
    .min(1, { error: 'must be an integer from 1 to 31' })
    .max(31, { error: 'must be an integer from 1 to 31' })
    .default(1)
    .openapi({ example: 1 }),
  method: z
    .enum(PRAYER_METHODS, { error: `must be one of ${PRAYER_METHODS.join(', ')}` })
    .default('kemenag')
    .openapi({ example: 'kemenag' }),
  madhab: z
    .enum(MADHABS, { error: 'must be shafi or hanafi' })
    .default('shafi')
    .openapi({ description: 'Changes asr only' }),
});

const TimesSchema = z
  .object({
    imsak: z.string().nullable().openapi({ example: '04:33' }),
    fajr: z.string().nullable().openapi({ example: '04:43' }),
    sunrise: z.string().nullable().openapi({ example: '05:54' }),
    dhuhr: z.string().nullable().openapi({ example: '12:08' }),
    asr: z.string().nullable().openapi({ example: '15:09' }),
    maghrib: z.string().nullable().openapi({ example: '18:14' }),
    isha: z.string().nullable().openapi({ example: '19:23' }),
  })
  .openapi('PrayerTimesOfDay');

const LocationSchema = z
  .object({
    kode: z.string().nullable(),
    nama: z.string().nullable(),
    level: z.enum(['provinsi', 'kabupaten_kota']).nullable(),
    induk: z.string().nullable(),
    ibukota: z.string().nullable(),
    lat: z.number(),
    lng: z.number(),
    timezone: z.string().nullable(),
    utc_offset: z.number(),
    luas_km2: z.number().nullable(),
    penduduk: z.number().int().nullable(),
    nearest: z
      .object({ kode: z.string(), nama: z.string(), distance_km: z.number() })
      .nullable()
      .openapi({ description: 'For coordinates: the nearest kabupaten/kota centroid' }),
  })
  .openapi('PrayerLocation');

const PrayerSchema = z
  .object({
    location: LocationSchema,
    method: z.object({
      id: z.enum(PRAYER_METHODS),
      label: z.string(),
      fajr_angle: z.number(),
      isha: z.string().openapi({ description: 'Depression angle, or an interval after maghrib' }),
      ihtiyati: z
        .record(z.string(), z.number())
        .openapi({ description: 'Minutes added to each computed time (negative = earlier)' }),
    }),
    madhab: z.enum(MADHABS),
    note: z.string(),
    date: z.string().openapi({ description: 'The (first) day, YYYY-MM-DD' }),
    times: TimesSchema.optional().openapi({ description: 'When days = 1' }),
    days: z
      .array(z.object({ date: z.string(), times: TimesSchema }))
      .optional()
      .openapi({ description: 'When days > 1: one entry per day, in order' }),
  })
  .openapi('PrayerTimes');

const prayerRoute = createRoute({
  method: 'get',
  path: '/v1/tools/prayer-times',
  tags: TAGS,
  summary: 'Prayer times for an Indonesian city or any coordinates (free)',
  description:
    'Give `city` (name or code) or `lat` with `lng`. Kemenag by default: fajr 20°, isha 18°, the ministry’s ' +
    'per-prayer safety minutes (ihtiyati) and imsak 10 minutes before subuh; typically within 1-2 minutes of ' +
    'the official table. Times are HH:MM in the place’s time zone, null where the sun never reaches the ' +
    'angle. With `days` = 1 the response has `date` and `times`; with `days` > 1 it has `date` (the first ' +
    'day) and `days`, an array of `{ date, times }`, one per day, instead of `times`. No key, no charge.',
  request: { query: PrayerQuery },
  responses: {
    200: json(PrayerSchema, 'Prayer times'),
    ...pickErrors(400, 429),
  },
});

type Location = z.infer<typeof LocationSchema>;

const ZONE_BY_OFFSET: Readonly<Record<number, string>> = { 7: 'WIB', 8: 'WITA', 9: 'WIT' };

function regionLocation(r: Region): Location {
  return { ...r, nearest: null };
}

/** A city name or code → the region whose coordinates are used, and what to tell the caller about it. */
function resolveCity(city: string): { region: Region; notes: string[] } {
  const notes: string[] = [];
  const kode = normalizeKode(city);
  let region: Region | undefined;
  let match: RegionMatch | undefined;
  if (kode) {
    region = regionByKode(kode.slice(0, 5));
    if (!region)
      throw invalidInput([{ field: 'city', message: `no provinsi or kabupaten/kota has kode ${kode}` }]);
  } else {
    match = searchRegions(city, { limit: 1 })[0];
    region = match?.region;
  }
  if (!region) {
    const suggestions = suggestRegions(city).map((r) => ({ kode: r.kode, nama: r.nama }));
    const message = `unknown city "${city.trim()}"; closest: ${suggestions.map((s) => `${s.nama} (${s.kode})`).join(', ')}`;
    throw new ApiError('invalid_input', `invalid input: city: ${message}`, [
      { field: 'city', message, suggestions },
    ]);
  }
  if (match && match.match !== 'exact')
    notes.push(`"${city.trim()}" was read as ${region.nama} (${region.kode}).`);
  if (region.level === 'provinsi') {
    const capital = searchRegions(region.ibukota, {
      province: region.kode,
      level: 'kabupaten_kota',
      limit: 1,
    })[0];
    if (capital) {
      notes.push(`${region.nama} is a provinsi; times are for its capital, ${capital.region.nama}.`);
      return { region: capital.region, notes };
    }
    notes.push(`${region.nama} is a provinsi; times are for the centroid of the whole province.`);
  }
  return { region, notes };
}

function coordinatesLocation(lat: number, lng: number, tz: number | undefined): Location {
  const near = nearestRegion(lat, lng);
  // Within reach of a kabupaten/kota the time zone is Indonesia's (Aceh is UTC+7 though lng/15 says 6).
  const inIndonesia = near !== undefined && near.distanceKm <= 150;
  const utcOffset = tz ?? (inIndonesia ? near.region.utc_offset : offsetFromLongitude(lng));
  return {
    kode: null,
    nama: null,
    level: null,
    induk: null,
    ibukota: null,
    lat,
    lng,
    timezone: inIndonesia ? (ZONE_BY_OFFSET[utcOffset] ?? null) : null,
    utc_offset: utcOffset,
    luas_km2: null,
    penduduk: null,
    nearest: near
      ? { kode: near.region.kode, nama: near.region.nama, distance_km: Math.round(near.distanceKm * 10) / 10 }
      : null,
  };
}

const PRAYER_NOTE =
  'Calculated from the sun’s position (adhan library), not copied from a table; with method kemenag typically ' +
  'within 1-2 minutes of the official Kemenag schedule.';

function mountPrayerTimes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(prayerRoute, (c) => {
    const query = c.req.valid('query');
    const { city, lat, lng, tz } = query;
    if (city !== undefined && (lat !== undefined || lng !== undefined)) {
      throw invalidInput([{ field: 'city', message: 'give either city or lat and lng, not both' }]);
    }
    if ((lat === undefined) !== (lng === undefined)) {
      const missing = lat === undefined ? 'lat' : 'lng';
      throw invalidInput([
        { field: missing, message: `is required with ${missing === 'lat' ? 'lng' : 'lat'}` },
      ]);
    }
    let location: Location;
    const notes: string[] = [];
    if (city !== undefined) {
      if (city.trim() === '') throw invalidInput([{ field: 'city', message: 'must not be empty' }]);
      const resolved = resolveCity(city);
      location = regionLocation(resolved.region);
      notes.push(...resolved.notes, 'The coordinates are the centroid of the region’s area.');
      if (tz !== undefined) location = { ...location, utc_offset: tz };
    } else if (lat !== undefined && lng !== undefined) {
      location = coordinatesLocation(lat, lng, tz);
    } else {
      throw invalidInput([{ field: 'city', message: 'give city (a name or code) or lat and lng' }]);
    }

    let first: CalendarDate;
    if (query.date !== undefined) {
      const parsed = parseIsoDate(query.date);
      if (!parsed) throw invalidInput([{ field: 'date', message: `${query.date} is not a calendar date` }]);
      if (parsed.year < 1900 || parsed.year > 2199) {
        throw invalidInput([{ field: 'date', message: 'must be between 1900-01-01 and 2199-12-31' }]);
      }
      first = parsed;
    } else {
      first = dateAtOffset(location.utc_offset);
    }
    const dayAt = (i: number) => {
      const date = addDays(first, i);
      return {
        date: formatIsoDate(date),
        times: prayerTimes({
          lat: location.lat,
          lng: location.lng,
          utcOffset: location.utc_offset,
          date,
          method: query.method,
          madhab: query.madhab,
        }),
      };
    };
    const body = {
      location,
      method: describeMethod(query.method),
      madhab: query.madhab,
      note: [PRAYER_NOTE, ...notes].join(' '),
      date: formatIsoDate(first),
    };
    if (query.days === 1) return c.json({ ...body, times: dayAt(0).times }, 200);
    return c.json({ ...body, days: Array.from({ length: query.days }, (_, i) => dayAt(i)) }, 200);
  });
}

// ---------------------------------------------------------------- verify-nik

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

const NikSchema = z
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

const nikRoute = createRoute({
  method: 'get',
  path: '/v1/tools/verify-nik',
  tags: TAGS,
  summary: 'Check an Indonesian NIK for consistency (free)',
  description:
    'Reads the region (digits 1-6), birth date and gender (digits 7-12; women have 40 added to the day) and ' +
    'serial, and compares them with `birth_date` and `gender` when given. The two-digit birth year is read in ' +
    'the latest century that does not put the birth date after today (in WIB). A region code that no longer ' +
    'exists is a note, not a failure. Checks consistency, not authenticity. No key, no charge.',
  request: {
    query: z.object({
      nik: z.string({ error: 'is required: 16 digits' }).openapi({ example: '3171011203850001' }),
      birth_date: z.string().optional().openapi({ description: 'DD-MM-YYYY', example: '12-03-1985' }),
      gender: z
        .string()
        .optional()
        .openapi({ description: 'L, LAKI-LAKI, M, MALE, P, PEREMPUAN, F or FEMALE' }),
    }),
  },
  responses: {
    200: json(NikSchema, 'What the number says and which checks pass'),
    ...pickErrors(400, 429),
  },
});

function mountVerifyNik(app: OpenAPIHono<AppEnv>): void {
  app.openapi(nikRoute, (c) => {
    const { nik, birth_date, gender } = c.req.valid('query');
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
    return c.json(
      verifyNik(normalized.digits, { birthDate, gender: claimedGender }, todayInIndonesia()),
      200,
    );
  });
}

// ---------------------------------------------------------------- verify-npwp

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

const npwpRoute = createRoute({
  method: 'get',
  path: '/v1/tools/verify-npwp',
  tags: TAGS,
  summary: 'Check an Indonesian NPWP (tax number) for structure (free)',
  description:
    '15 digits (legacy, `format: legacy15`): the parts and the Luhn check digit. 16 digits starting with 0: ' +
    'the legacy number with a leading 0, Luhn on digits 1-10. Other 16 digits: the holder’s NIK, with the ' +
    'NIK checks and `nik` in the response. Dots, dashes and spaces are ignored. No key, no charge.',
  request: {
    query: z.object({
      npwp: z.string({ error: 'is required: 15 or 16 digits' }).openapi({ example: '01.312.166.0-091.000' }),
    }),
  },
  responses: {
    200: json(NpwpSchema, 'The parts and which checks pass'),
    ...pickErrors(400, 429),
  },
});

function mountVerifyNpwp(app: OpenAPIHono<AppEnv>): void {
  app.openapi(npwpRoute, (c) => {
    const normalized = normalizeNpwp(c.req.valid('query').npwp);
    if (!normalized.ok) throw invalidInput([{ field: 'npwp', message: normalized.message }]);
    return c.json(verifyNpwp(normalized.digits, todayInIndonesia()), 200);
  });
}

// ---------------------------------------------------------------- qris

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

const qrisRoute = createRoute({
  method: 'get',
  path: '/v1/tools/qris',
  tags: TAGS,
  summary: 'Read and check a QRIS payload; optionally set its amount (free)',
  description:
    'Parses the EMVCo merchant-presented payload (TLV with nested templates) and verifies its CRC-16/CCITT-FALSE. ' +
    'With `amount`, refused when the source CRC is wrong; otherwise sets tag 54 and point of initiation 12, keeps ' +
    'every other data object byte for byte, recomputes the CRC and returns the new payload, re-parsed: the ' +
    'top-level fields (type dynamic, amount) then describe the new payload, and `source` the one sent. When ' +
    '`valid_crc` is false nothing else is to be trusted. It does not create merchant codes. A payload that is ' +
    'not TLV is a 400 naming the character where reading stopped. No key, no charge.',
  request: {
    query: z.object({
      payload: z
        .string({ error: 'is required: the QRIS string' })
        .max(1024, { error: 'must be at most 1024 characters' })
        .openapi({ description: 'The QRIS string (URL-encoded)' }),
      amount: z.string().optional().openapi({ description: 'Amount to set, plain digits, e.g. 15000' }),
    }),
  },
  responses: {
    200: json(QrisSchema, 'The parsed payload'),
    ...pickErrors(400, 429),
  },
});

const QRIS_NOTE =
  'When valid_crc is false nothing else is to be trusted. This reads merchant codes; it does not create them.';

function mountQris(app: OpenAPIHono<AppEnv>): void {
  app.openapi(qrisRoute, (c) => {
    const { payload, amount } = c.req.valid('query');
    let info: ReturnType<typeof parseQris>;
    try {
      info = parseQris(payload);
    } catch (err) {
      if (!(err instanceof QrisParseError)) throw err;
      throw new ApiError('invalid_input', `invalid input: payload: ${err.message}`, [
        { field: 'payload', message: err.message, offset: err.offset },
      ]);
    }
    if (amount === undefined) return c.json({ ...info, note: QRIS_NOTE }, 200);
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
    return c.json({ ...result, note: QRIS_NOTE, source: info, with_amount: result }, 200);
  });
}

// ---------------------------------------------------------------- terbilang

const TerbilangSchema = z
  .object({
    number: z.number().int().openapi({ example: 1250000 }),
    formatted: z.string().openapi({ example: '1.250.000' }),
    terbilang: z.string().openapi({ example: 'satu juta dua ratus lima puluh ribu' }),
    rupiah: z.string().openapi({ example: 'Satu Juta Dua Ratus Lima Puluh Ribu Rupiah' }),
  })
  .openapi('Terbilang');

const terbilangRoute = createRoute({
  method: 'get',
  path: '/v1/tools/terbilang',
  tags: TAGS,
  summary: 'A whole number in Indonesian words (free)',
  description:
    'Whole numbers up to 999.999.999.999.999 (999 triliun), negative as "minus …"; Indonesian thousands ' +
    'separators are accepted (1.250.000); decimals are refused. `terbilang` is lower case, as PUEBI writes ' +
    'numbers in words; `rupiah` is the receipt (kwitansi) phrase with each word capitalised, or in `case` ' +
    'sentence or lower. No key, no charge.',
  request: {
    query: z.object({
      n: z.string({ error: 'is required: a whole number' }).openapi({ example: '1.250.000' }),
      case: z
        .enum(RUPIAH_CASES, { error: 'must be title, sentence or lower' })
        .default('title')
        .openapi({ description: 'Capitalisation of `rupiah`' }),
    }),
  },
  responses: {
    200: json(TerbilangSchema, 'The number in words'),
    ...pickErrors(400, 429),
  },
});

// Made on first use: a process's first Intl formatter loads several MB of ICU data, which most never need.
let idFormat: Intl.NumberFormat | undefined;

function formatIndonesian(value: bigint): string {
  idFormat ??= new Intl.NumberFormat('id-ID');
  return idFormat.format(value);
}

function mountTerbilang(app: OpenAPIHono<AppEnv>): void {
  app.openapi(terbilangRoute, (c) => {
    const { n, case: letterCase } = c.req.valid('query');
    const parsed = parseWholeNumber(n);
    if (!parsed.ok) throw invalidInput([{ field: 'n', message: parsed.message }]);
    const value = parsed.value;
    if (value > TERBILANG_MAX || value < -TERBILANG_MAX) {
      throw invalidInput([
        { field: 'n', message: 'must be at most 999.999.999.999.999 (999 triliun) either side of 0' },
      ]);
    }
    return c.json(
      {
        number: Number(value),
        formatted: formatIndonesian(value),
        terbilang: terbilang(value),
        rupiah: rupiahPhrase(value, letterCase),
      },
      200,
    );
  });
}

/** Registers the six lookups; they need no dependencies, no key and no payment. */
export function mountLookupRoutes(app: OpenAPIHono<AppEnv>): void {
  mountWilayah(app);
  mountPrayerTimes(app);
  mountVerifyNik(app);
  mountVerifyNpwp(app);
  mountQris(app);
  mountTerbilang(app);
}
