/** The wilayah lookup (GET /v1/tools/wilayah): provinces and kabupaten/kota by code, name or parent province. */
import { z } from '@hono/zod-openapi';
import { ApiError, invalidInput } from '../http/errors.js';
import type { Lookup } from './lookup.js';
import { searchRegions, suggestRegions } from './region-search.js';
import {
  normalizeKode,
  provinces,
  type Region,
  type RegionLevel,
  regionByKode,
  regionsOfProvince,
  WILAYAH_SCOPE,
  WILAYAH_SOURCE,
} from './wilayah.js';

export const RegionSchema = z
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

interface WilayahInput {
  kode?: string;
  q?: string;
  induk?: string;
  level?: RegionLevel;
  limit?: number;
}

function provinceKode(field: string, text: string): string {
  const kode = normalizeKode(text);
  if (kode?.length !== 2) {
    throw invalidInput([{ field, message: `must be a 2-digit provinsi code, e.g. 32 (got "${text}")` }]);
  }
  return kode;
}

function allKabupatenKota(): Region[] {
  return provinces().flatMap((p) => regionsOfProvince(p.kode));
}

function answer(results: Region[], suggestions?: Array<{ kode: string; nama: string }>) {
  return {
    source: WILAYAH_SOURCE,
    scope: WILAYAH_SCOPE,
    count: results.length,
    results,
    ...(suggestions ? { suggestions } : {}),
  };
}

function wilayah(input: Record<string, unknown>): Record<string, unknown> {
  const { kode, q, induk, level, limit } = input as WilayahInput;
  const given = [kode, q, induk].filter((v) => v !== undefined).length;
  if (given > 1) {
    throw invalidInput([{ field: 'kode', message: 'give only one of kode, q and induk' }]);
  }
  const byLevel = (list: readonly Region[]) => (level ? list.filter((r) => r.level === level) : [...list]);

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
}

export const wilayahLookup: Lookup = {
  answer: { schema: WilayahSchema, description: 'Matching regions' },
  errors: [400, 404],
  run: wilayah,
};
