/** Indonesian region data (38 provinsi, 514 kabupaten/kota, 7,285 kecamatan) loaded once from the bundled JSON. */
import { readFileSync } from 'node:fs';
import { shippedFile } from '../shipped-files.js';

export type RegionLevel = 'provinsi' | 'kabupaten_kota';
export type IndonesianTimezone = 'WIB' | 'WITA' | 'WIT';

/** A provinsi or kabupaten/kota, as the API returns it. */
export interface Region {
  kode: string;
  nama: string;
  level: RegionLevel;
  /** The code of the provinsi the region belongs to: its parent's, and a provinsi's own. */
  induk: string;
  ibukota: string;
  lat: number;
  lng: number;
  timezone: IndonesianTimezone;
  utc_offset: number;
  luas_km2: number;
  penduduk: number;
}

export interface Kecamatan {
  kode: string;
  nama: string;
  induk: string;
}

/** Where the data comes from, for the `source` field of responses. */
export const WILAYAH_SOURCE =
  'Kepmendagri No 300.2.2-2138 Tahun 2025 codes and names, with area, population, centroids and capitals ' +
  'from cahyadsn/wilayah, cahyadsn/wilayah_boundaries and ichadhr/db-wilayah-indonesia (MIT; see NOTICE)';

export const WILAYAH_SCOPE = '38 provinsi and 514 kabupaten/kota (levels 1-2)';

interface Loaded {
  regions: Region[];
  byKode: Map<string, Region>;
  provinces: Region[];
  childrenByProvince: Map<string, Region[]>;
  kecamatanByKode: Map<string, Kecamatan>;
}

let loaded: Loaded | undefined;

function readJson<T>(name: string): T {
  return JSON.parse(readFileSync(shippedFile(`lookups/data/${name}`), 'utf8')) as T;
}

function load(): Loaded {
  if (loaded) return loaded;
  // The bundled data leaves a provinsi's parent empty; the interface gives every region the provinsi it is in.
  const regions = readJson<Array<Omit<Region, 'induk'> & { induk: string | null }>>('wilayah.json').map(
    (r): Region => ({ ...r, induk: r.induk ?? r.kode }),
  );
  const kecamatan = readJson<Kecamatan[]>('kecamatan.json');
  const byKode = new Map(regions.map((r) => [r.kode, r]));
  const provinces = regions.filter((r) => r.level === 'provinsi');
  const childrenByProvince = new Map<string, Region[]>(provinces.map((p) => [p.kode, []]));
  for (const r of regions) if (r.level !== 'provinsi') childrenByProvince.get(r.induk)?.push(r);
  loaded = {
    regions,
    byKode,
    provinces,
    childrenByProvince,
    kecamatanByKode: new Map(kecamatan.map((k) => [k.kode, k])),
  };
  return loaded;
}

export function allRegions(): readonly Region[] {
  return load().regions;
}

export function provinces(): readonly Region[] {
  return load().provinces;
}

export function regionByKode(kode: string): Region | undefined {
  return load().byKode.get(kode);
}

/** The kabupaten/kota of a provinsi, in code order; empty for an unknown code. */
export function regionsOfProvince(provinceKode: string): readonly Region[] {
  return load().childrenByProvince.get(provinceKode) ?? [];
}

/** Every kecamatan, in code order. */
export function allKecamatan(): readonly Kecamatan[] {
  return [...load().kecamatanByKode.values()];
}

export function kecamatanByKode(kode: string): Kecamatan | undefined {
  return load().kecamatanByKode.get(kode);
}

/**
 * Reads a region code written with or without dots ("32", "32.73", "3273", "32.73.01", "327301").
 * Returns the dotted form, or undefined when it is not 2, 4 or 6 digits.
 */
export function normalizeKode(input: string): string | undefined {
  const trimmed = input.trim();
  if (!/^\d{2}(\.?\d{2}){0,2}$/.test(trimmed)) return undefined;
  const digits = trimmed.replaceAll('.', '');
  return digits.match(/\d{2}/g)?.join('.');
}

/**
 * The kabupaten/kota whose centroid is nearest to a point, and how far it is. An equirectangular
 * distance is plenty near the equator, where all of Indonesia lies.
 */
export function nearestRegion(lat: number, lng: number): { region: Region; distanceKm: number } | undefined {
  let best: { region: Region; distanceKm: number } | undefined;
  const cosLat = Math.cos((lat * Math.PI) / 180);
  for (const r of load().regions) {
    if (r.level !== 'kabupaten_kota') continue;
    const dx = (r.lng - lng) * cosLat;
    const dy = r.lat - lat;
    const distanceKm = Math.sqrt(dx * dx + dy * dy) * 111.2;
    if (!best || distanceKm < best.distanceKm) best = { region: r, distanceKm };
  }
  return best;
}
