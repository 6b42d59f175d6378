// prayerTimes: Kemenag times against published tables, and the other methods and options.
import { describe, expect, it } from 'vitest';
import { parseIsoDate } from './dates.js';
import { type DayTimes, describeMethod, offsetFromLongitude, prayerTimes } from './prayer-times.js';

const minutes = (hhmm: string | null) => {
  if (hhmm === null) throw new Error('expected a time');
  const [h, m] = hhmm.split(':').map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
};

function kemenag(lat: number, lng: number, utcOffset: number, date: string): DayTimes {
  const day = parseIsoDate(date);
  if (!day) throw new Error(date);
  return prayerTimes({ lat, lng, utcOffset, date: day, method: 'kemenag', madhab: 'shafi' });
}

/** Asserts every published time is within `tolerance` minutes of the computed one. */
function expectWithin(computed: DayTimes, published: Partial<DayTimes>, tolerance = 2): void {
  for (const [name, value] of Object.entries(published)) {
    const got = computed[name as keyof DayTimes];
    expect(
      Math.abs(minutes(got) - minutes(value)),
      `${name}: computed ${got}, published ${value}`,
    ).toBeLessThanOrEqual(tolerance);
  }
}

describe('prayerTimes, kemenag, against the tables Kemenag (Bimas Islam) publishes', () => {
  // Kemenag's reference point for Jakarta is -6.1701, 106.8311 (WIB, UTC+7).
  const jakarta = (date: string) => kemenag(-6.1701, 106.8311, 7, date);

  it('Jakarta, 4 March 2026 (14 Ramadan 1447): the imsakiyah as republished by Media Indonesia', () => {
    const published = {
      imsak: '04:33',
      fajr: '04:43',
      dhuhr: '12:08',
      asr: '15:09',
      maghrib: '18:14',
      isha: '19:23',
    };
    expectWithin(jakarta('2026-03-04'), published);
    // The calibration in KEMENAG_IHTIYATI reproduces this day to the minute.
    expect(jakarta('2026-03-04')).toMatchObject(published);
  });

  it('Jakarta, 13 March 2026 (23 Ramadan 1447): the imsakiyah as republished by Media Indonesia', () => {
    expectWithin(jakarta('2026-03-13'), {
      imsak: '04:33',
      fajr: '04:43',
      dhuhr: '12:06',
      asr: '15:11',
      maghrib: '18:10',
      isha: '19:19',
    });
  });

  it('Jakarta, 31 March 2024: imsak 04:31 and subuh 04:41, as Kompas TV quoted from Bimas Islam', () => {
    expectWithin(jakarta('2024-03-31'), { imsak: '04:31', fajr: '04:41' });
  });

  // Makassar (WITA, UTC+8) at the city centre, -5.1477, 119.4327; these tables include terbit.
  const makassar = (date: string) => kemenag(-5.1477, 119.4327, 8, date);

  it('Makassar, 20 August 2023: the Kemenag schedule republished by viva.co.id', () => {
    expectWithin(makassar('2023-08-20'), {
      imsak: '04:41',
      fajr: '04:51',
      sunrise: '06:04',
      dhuhr: '12:09',
      asr: '15:29',
      maghrib: '18:08',
      isha: '19:18',
    });
  });

  it('Makassar, 5 December 2022: the Kemenag schedule republished by detik.com', () => {
    expectWithin(makassar('2022-12-05'), {
      fajr: '04:19',
      sunrise: '05:37',
      dhuhr: '11:56',
      asr: '15:21',
      maghrib: '18:08',
      isha: '19:23',
    });
  });

  it('puts imsak exactly 10 minutes before subuh', () => {
    const t = jakarta('2025-06-01');
    expect(minutes(t.fajr) - minutes(t.imsak)).toBe(10);
  });
});

describe('prayerTimes, other methods and options', () => {
  const day = { year: 2025, month: 6, day: 1 };
  const at = (method: Parameters<typeof prayerTimes>[0]['method'], madhab: 'shafi' | 'hanafi' = 'shafi') =>
    prayerTimes({ lat: -6.1701, lng: 106.8311, utcOffset: 7, date: day, method, madhab });

  it('a smaller fajr angle gives a later fajr: kemenag 20° < mwl 18° < isna 15°', () => {
    expect(minutes(at('kemenag').fajr)).toBeLessThan(minutes(at('mwl').fajr));
    expect(minutes(at('mwl').fajr)).toBeLessThan(minutes(at('isna').fajr));
  });

  it('hanafi moves asr later and nothing else', () => {
    const shafi = at('mwl');
    const hanafi = at('mwl', 'hanafi');
    expect(minutes(hanafi.asr) - minutes(shafi.asr)).toBeGreaterThan(30);
    expect({ ...hanafi, asr: null }).toEqual({ ...shafi, asr: null });
  });

  it('makkah: isha 90 minutes after maghrib, 120 in Ramadan (Umm al-Qura calendar)', () => {
    const normal = at('makkah');
    expect(minutes(normal.isha) - minutes(normal.maghrib)).toBe(90);
    const ramadan = prayerTimes({
      lat: 21.4225,
      lng: 39.8262,
      utcOffset: 3,
      date: { year: 2024, month: 3, day: 20 },
      method: 'makkah',
      madhab: 'shafi',
    });
    expect(minutes(ramadan.isha) - minutes(ramadan.maghrib)).toBe(120);
  });

  it('returns null where the sun never gets deep enough: Reykjavik at midsummer has no fajr or isha', () => {
    const t = prayerTimes({
      lat: 64.1466,
      lng: -21.9426,
      utcOffset: 0,
      date: { year: 2025, month: 6, day: 21 },
      method: 'mwl',
      madhab: 'shafi',
    });
    expect(t.fajr).toBeNull();
    expect(t.imsak).toBeNull();
    expect(t.isha).toBeNull();
    expect(t.sunrise).not.toBeNull();
    expect(t.maghrib).not.toBeNull();
  });

  it('returns null sunrise and sunset under the midnight sun (Longyearbyen, June)', () => {
    const t = prayerTimes({
      lat: 78.2232,
      lng: 15.6267,
      utcOffset: 2,
      date: { year: 2025, month: 6, day: 21 },
      method: 'kemenag',
      madhab: 'shafi',
    });
    expect(t.sunrise).toBeNull();
    expect(t.maghrib).toBeNull();
    expect(t.dhuhr).not.toBeNull();
  });

  it('describes each method with its angles and margins', () => {
    expect(describeMethod('kemenag')).toMatchObject({ fajr_angle: 20, isha: '18°', ihtiyati: { dhuhr: 3 } });
    expect(describeMethod('egypt')).toMatchObject({ fajr_angle: 19.5, isha: '17.5°' });
    expect(describeMethod('makkah').fajr_angle).toBe(18.5);
  });

  it('derives the UTC offset from the longitude', () => {
    expect(offsetFromLongitude(106.8)).toBe(7);
    expect(offsetFromLongitude(-74)).toBe(-5);
    expect(offsetFromLongitude(179.9)).toBe(12);
  });
});
