/** Prayer times for a place and day: adhan's astronomy, with Kemenag's angles, safety margins and imsak. */
import { CalculationMethod, CalculationParameters, Coordinates, Madhab, PrayerTimes, Rounding } from 'adhan';
import type { CalendarDate } from './dates.js';

export const PRAYER_METHODS = ['kemenag', 'mwl', 'isna', 'egypt', 'makkah', 'karachi'] as const;
export type PrayerMethodId = (typeof PRAYER_METHODS)[number];
export const MADHABS = ['shafi', 'hanafi'] as const;
export type MadhabId = (typeof MADHABS)[number];

const PRAYERS = ['fajr', 'sunrise', 'dhuhr', 'asr', 'maghrib', 'isha'] as const;
type Prayer = (typeof PRAYERS)[number];

/** HH:MM in the requested offset; null where the sun never reaches the angle that defines the time. */
export interface DayTimes {
  imsak: string | null;
  fajr: string | null;
  sunrise: string | null;
  dhuhr: string | null;
  asr: string | null;
  maghrib: string | null;
  isha: string | null;
}

export interface MethodDescription {
  id: PrayerMethodId;
  label: string;
  fajr_angle: number;
  /** How isha is defined: a depression angle ("18°") or an interval after maghrib. */
  isha: string;
  /** Minutes added to each computed time (negative = earlier); imsak is always 10 minutes before fajr. */
  ihtiyati: Record<Prayer, number>;
}

const IMSAK_BEFORE_FAJR_MINUTES = 10;
const NO_MARGIN: Record<Prayer, number> = { fajr: 0, sunrise: 0, dhuhr: 0, asr: 0, maghrib: 0, isha: 0 };

/**
 * Kemenag's safety margins (ihtiyati), per prayer. The ministry adds about 2 minutes to each time and
 * rounds up; recomputing its published tables for Jakarta and Makassar with fajr 20° and isha 18° shows
 * dzuhur and maghrib carry 3 minutes, and terbit is taken 3 minutes early and rounded down (earlier is
 * the careful side for the end of subuh). With these the computed times match the tables to the minute
 * on most days and never differ by more than one.
 */
const KEMENAG_IHTIYATI: Record<Prayer, number> = {
  fajr: 2,
  sunrise: -3,
  dhuhr: 3,
  asr: 2,
  maghrib: 3,
  isha: 2,
};

interface MethodSpec {
  label: string;
  params: () => CalculationParameters;
  isha: string;
  ihtiyati: Record<Prayer, number>;
}

const METHODS: Record<PrayerMethodId, MethodSpec> = {
  kemenag: {
    label: 'Kementerian Agama RI (Kemenag)',
    params: () => new CalculationParameters('Other', 20, 18),
    isha: '18°',
    ihtiyati: KEMENAG_IHTIYATI,
  },
  mwl: {
    label: 'Muslim World League',
    params: CalculationMethod.MuslimWorldLeague,
    isha: '17°',
    ihtiyati: { ...NO_MARGIN, dhuhr: 1 },
  },
  isna: {
    label: 'Islamic Society of North America',
    params: CalculationMethod.NorthAmerica,
    isha: '15°',
    ihtiyati: { ...NO_MARGIN, dhuhr: 1 },
  },
  egypt: {
    label: 'Egyptian General Authority of Survey',
    params: CalculationMethod.Egyptian,
    isha: '17.5°',
    ihtiyati: { ...NO_MARGIN, dhuhr: 1 },
  },
  makkah: {
    label: 'Umm al-Qura University, Makkah',
    params: CalculationMethod.UmmAlQura,
    isha: '90 minutes after maghrib (120 in Ramadan)',
    ihtiyati: NO_MARGIN,
  },
  karachi: {
    label: 'University of Islamic Sciences, Karachi',
    params: CalculationMethod.Karachi,
    isha: '18°',
    ihtiyati: { ...NO_MARGIN, dhuhr: 1 },
  },
};

export function describeMethod(id: PrayerMethodId): MethodDescription {
  const spec = METHODS[id];
  return {
    id,
    label: spec.label,
    fajr_angle: spec.params().fajrAngle,
    isha: spec.isha,
    ihtiyati: spec.ihtiyati,
  };
}

// Made on first use: a process's first Intl formatter loads several MB of ICU data, which most never need.
let hijriMonth: Intl.DateTimeFormat | undefined;

function isRamadan(date: CalendarDate): boolean {
  hijriMonth ??= new Intl.DateTimeFormat('en-u-ca-islamic-umalqura', { timeZone: 'UTC', month: 'numeric' });
  return hijriMonth.format(new Date(Date.UTC(date.year, date.month - 1, date.day, 12))) === '9';
}

/** The UTC offset implied by a longitude (15° per hour), for coordinates given without a time zone. */
export function offsetFromLongitude(lng: number): number {
  return Math.max(-12, Math.min(14, Math.round(lng / 15)));
}

const MINUTE_MS = 60_000;

type MinuteRounding = 'up' | 'down' | 'nearest';

const ROUND: Record<MinuteRounding, (x: number) => number> = {
  up: Math.ceil,
  down: Math.floor,
  nearest: Math.round,
};

/** Kemenag rounds every time to the later minute except terbit, which it rounds to the earlier one. */
function roundingOf(method: PrayerMethodId, prayer: Prayer): MinuteRounding {
  if (method !== 'kemenag') return 'nearest';
  return prayer === 'sunrise' ? 'down' : 'up';
}

function shifted(time: Date, minutes: number, rounding: MinuteRounding): number | null {
  const t = time.getTime();
  if (Number.isNaN(t)) return null;
  return ROUND[rounding]((t + minutes * MINUTE_MS) / MINUTE_MS) * MINUTE_MS;
}

function hhmm(epochMs: number | null, utcOffsetHours: number): string | null {
  if (epochMs === null) return null;
  const local = new Date(epochMs + utcOffsetHours * 3_600_000);
  return `${String(local.getUTCHours()).padStart(2, '0')}:${String(local.getUTCMinutes()).padStart(2, '0')}`;
}

export interface PrayerTimesInput {
  lat: number;
  lng: number;
  utcOffset: number;
  date: CalendarDate;
  method: PrayerMethodId;
  madhab: MadhabId;
}

/** The prayer times of one day at one place. */
export function prayerTimes(input: PrayerTimesInput): DayTimes {
  const spec = METHODS[input.method];
  const params = spec.params();
  params.madhab = input.madhab === 'hanafi' ? Madhab.Hanafi : Madhab.Shafi;
  // Seconds are kept so the margins and rounding below are applied once, to the exact instant.
  params.rounding = Rounding.None;
  params.methodAdjustments = { ...NO_MARGIN };
  // adhan substitutes a fraction of the night where the sun never reaches the fajr or isha angle; the
  // API reports null there instead, so the substitute is made NaN and the time comes back invalid.
  params.nightPortions = () => ({ fajr: Number.NaN, isha: Number.NaN });
  if (input.method === 'makkah' && isRamadan(input.date)) params.ishaInterval = 120;

  // adhan reads the day from the Date's local fields, so a local midnight names the day in any process TZ.
  const day = new Date(input.date.year, input.date.month - 1, input.date.day);
  const raw = new PrayerTimes(new Coordinates(input.lat, input.lng), day, params);
  const times = Object.fromEntries(
    PRAYERS.map((p) => [p, shifted(raw[p], spec.ihtiyati[p], roundingOf(input.method, p))]),
  ) as Record<Prayer, number | null>;
  const imsak = times.fajr === null ? null : times.fajr - IMSAK_BEFORE_FAJR_MINUTES * MINUTE_MS;
  return {
    imsak: hhmm(imsak, input.utcOffset),
    fajr: hhmm(times.fajr, input.utcOffset),
    sunrise: hhmm(times.sunrise, input.utcOffset),
    dhuhr: hhmm(times.dhuhr, input.utcOffset),
    asr: hhmm(times.asr, input.utcOffset),
    maghrib: hhmm(times.maghrib, input.utcOffset),
    isha: hhmm(times.isha, input.utcOffset),
  };
}
