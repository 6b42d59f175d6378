// Region aliases: common names of real regions, each with a public source, resolved to the official region.
import { describe, expect, it } from 'vitest';
import { regionAliases } from './region-aliases.js';
import { searchRegions } from './region-search.js';
import { regionByKode } from './wilayah.js';

const first = (q: string) => searchRegions(q)[0]?.region.kode;

describe('region aliases', () => {
  it('name real regions, each with a public source', () => {
    const aliases = regionAliases();
    expect(aliases.length).toBeGreaterThan(50);
    for (const a of aliases) {
      expect(regionByKode(a.kode), a.alias).toBeDefined();
      expect(a.source, a.alias).toMatch(/^https:\/\//);
      expect(first(a.alias), a.alias).toBe(a.kode);
    }
  });

  // Held out: none of these strings is written in data/region-aliases.json. They are the names as people type
  // them (case, punctuation, a type word, spacing, a slip of the keyboard) and must still reach the region meant.
  const HELD_OUT: ReadonlyArray<readonly [string, string]> = [
    ['Kota Solo', '33.72'],
    ['SOLO', '33.72'],
    ['Jogya', '34.71'],
    ['Yogja', '34.71'],
    ['D.I. Yogyakarta', '34'],
    ['Prov. Jatim', '35'],
    ['JABAR', '32'],
    ['Sumatra Utara', '12'],
    ['Kaltim.', '64'],
    ['Kota Ujungpandang', '73.71'],
    ['Ujung-Pandang', '73.71'],
    ['Kota Batavia', '31'],
    ['Buitenzorg', '32.71'],
    ['Fort de Kock', '13.75'],
    ['Tanjung Karang', '18.71'],
    ['Irian Jaya', '91'],
    ['N.T.T.', '53'],
    ['DKI', '31'],
    ['Jakarta Selatan', '31.74'],
    ['Tangsel', '36.74'],
    ['kota bandung', '32.73'],
    ['Bandung', '32.73'],
    ['Surakarta', '33.72'],
  ];

  it.each(HELD_OUT)('%s → %s', (written, kode) => {
    expect(first(written)).toBe(kode);
  });

  it('keeps the official reading when the caller names the type: Kabupaten Bandung is not Kota Bandung', () => {
    expect(first('Kabupaten Bandung')).toBe('32.04');
    expect(first('Kota Solok')).toBe('13.72');
    expect(searchRegions('Solo').map((m) => m.region.kode)).toContain('13.72');
  });
});
