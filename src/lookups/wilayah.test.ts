// The wilayah data (provinces, kabupaten/kota, kecamatan, the 2022 Papua codes), searchRegions and
// typoDistance.
import { describe, expect, it } from 'vitest';
import { formerCodes } from './former-codes.js';
import { searchRegions, suggestRegions, typoDistance } from './region-search.js';
import {
  allRegions,
  kecamatanByKode,
  normalizeKode,
  provinces,
  regionByKode,
  regionsOfProvince,
} from './wilayah.js';

describe('wilayah data', () => {
  it('holds 38 provinsi, 514 kabupaten/kota (416 + 98 kota) and the kecamatan', () => {
    expect(provinces()).toHaveLength(38);
    const kabKota = allRegions().filter((r) => r.level === 'kabupaten_kota');
    expect(kabKota).toHaveLength(514);
    expect(kabKota.filter((r) => r.nama.startsWith('Kota'))).toHaveLength(98);
    expect(kecamatanByKode('31.71.01')?.nama).toBe('Gambir');
  });

  it('links every kabupaten/kota to its province, with the province’s time zone', () => {
    for (const r of allRegions()) {
      if (r.level === 'provinsi') continue;
      const parent = regionByKode(r.induk ?? '');
      expect(parent?.level).toBe('provinsi');
      expect(r.timezone).toBe(parent?.timezone);
    }
    expect(regionsOfProvince('31').map((r) => r.kode)).toEqual([
      '31.01',
      '31.71',
      '31.72',
      '31.73',
      '31.74',
      '31.75',
    ]);
    expect(regionByKode('51')?.utc_offset).toBe(8);
    expect(regionByKode('94')?.timezone).toBe('WIT');
  });

  it('normalizes codes written with or without dots', () => {
    expect(normalizeKode('32')).toBe('32');
    expect(normalizeKode('3273')).toBe('32.73');
    expect(normalizeKode(' 32.73 ')).toBe('32.73');
    expect(normalizeKode('327301')).toBe('32.73.01');
    expect(normalizeKode('3')).toBeUndefined();
    expect(normalizeKode('32.7')).toBeUndefined();
    expect(normalizeKode('ab')).toBeUndefined();
  });

  it('maps each code retired in the 2022 Papua split to a region of a new Papua province', () => {
    for (const [old, current] of formerCodes()) {
      expect(regionByKode(old)).toBeUndefined();
      expect(['93', '94', '95', '96']).toContain(regionByKode(current)?.induk);
    }
  });
});

describe('searchRegions', () => {
  const names = (q: string, options = {}) => searchRegions(q, options).map((m) => m.region.kode);

  it('prefers the kota when a kota and a kabupaten share the name', () => {
    expect(names('Bogor')).toEqual(['32.71', '32.01']);
    expect(names('malang').slice(0, 2)).toEqual(['35.73', '35.07']);
    expect(names('Gorontalo').slice(0, 3)).toEqual(['75.71', '75.01', '75']);
  });

  it('follows a Kabupaten / Kab. / Kota prefix', () => {
    expect(names('Kabupaten Bogor')[0]).toBe('32.01');
    expect(names('kab. bogor')[0]).toBe('32.01');
    expect(names('KOTA  BOGOR')[0]).toBe('32.71');
  });

  it('ignores case, spacing and punctuation, and spells out "Kep."', () => {
    expect(names('pangkalpinang')[0]).toBe('19.71');
    expect(names('Palangka Raya')[0]).toBe('62.71');
    expect(names('Kep. Seribu')[0]).toBe('31.01');
    expect(names('fakfak')[0]).toBe('92.03');
  });

  it('tolerates small typos', () => {
    expect(names('Makasar')[0]).toBe('73.71');
    expect(names('Surabya')[0]).toBe('35.78');
    expect(names('bandng').slice(0, 2)).toEqual(['32.73', '32.04']);
  });

  it('finds prefixes, whole words, capitals and common short names', () => {
    expect(names('Jakarta')[0]).toBe('31.71');
    expect(names('jaksel')).toEqual(['31.74']);
    expect(names('Cibinong')).toEqual(['32.01']);
    expect(names('DKI Jakarta')[0]).toBe('31');
    expect(names('jogja')[0]).toBe('34.71');
    expect(names('jabar')[0]).toBe('32');
  });

  it('does not pad exact results with typo matches', () => {
    expect(names('Medan')).toEqual(['12.71', '12']);
  });

  it('filters by level and province and limits the count', () => {
    expect(names('Jambi', { level: 'provinsi' })).toEqual(['15']);
    expect(names('Selatan', { province: '31' })).toEqual(['31.74']);
    expect(names('Kepulauan', { limit: 3 })).toHaveLength(3);
  });

  it('suggests close names for a query that matches nothing', () => {
    expect(searchRegions('Bandoeng Baratte')).toEqual([]);
    expect(suggestRegions('Bandoeng Baratte').map((r) => r.kode)).toContain('32.17');
  });
});

describe('typoDistance', () => {
  it('counts edits and adjacent swaps', () => {
    expect(typoDistance('bandung', 'bandung')).toBe(0);
    expect(typoDistance('bandng', 'bandung')).toBe(1);
    expect(typoDistance('bnadung', 'bandung')).toBe(1);
    expect(typoDistance('kitten', 'sitting')).toBe(3);
    expect(typoDistance('abc', 'xyzabc', 2)).toBe(3);
  });
});
