/** The prayer-times lookup (GET /v1/tools/prayer-times): an Indonesian city or any coordinates, one or more days. */
import { z } from '@hono/zod-openapi';
import { ApiError, invalidInput } from '../http/errors.js';
import { addDays, type CalendarDate, dateAtOffset, formatIsoDate, parseIsoDate } from './dates.js';
import type { Lookup } from './lookup.js';
import {
  describeMethod,
  MADHABS,
  type MadhabId,
  offsetFromLongitude,
  PRAYER_METHODS,
  type PrayerMethodId,
  prayerTimes,
} from './prayer-times.js';
import { type RegionMatch, searchRegions, suggestRegions } from './region-search.js';
import { nearestRegion, normalizeKode, type Region, regionByKode } from './wilayah.js';

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

type Location = z.infer<typeof LocationSchema>;

interface PrayerInput {
  city?: string;
  lat?: number;
  lng?: number;
  tz?: number;
  date?: string;
  /** Defaulted by the catalog schema (1, kemenag, shafi). */
  days: number;
  method: PrayerMethodId;
  madhab: MadhabId;
}

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

function prayerTimesAnswer(input: Record<string, unknown>): Record<string, unknown> {
  const query = input as unknown as PrayerInput;
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
  if (query.days === 1) return { ...body, times: dayAt(0).times };
  return { ...body, days: Array.from({ length: query.days }, (_, i) => dayAt(i)) };
}

export const prayerTimesLookup: Lookup = {
  answer: { schema: PrayerSchema, description: 'Prayer times' },
  errors: [400],
  run: prayerTimesAnswer,
};
