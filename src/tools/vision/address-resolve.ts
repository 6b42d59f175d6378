/**
 * Checks the parts a model read from an address against kasir's own region data: the kabupaten/kota and provinsi
 * are resolved from the official list (the wilayah name search, and the kecamatan list to choose between
 * candidates), disagreements are reported, and the confidence is earned by how well the parts matched.
 */
import { kecamatanNamed } from '../../lookups/kecamatan-search.js';
import { type MatchKind, type RegionMatch, searchRegions } from '../../lookups/region-search.js';
import { type Region, regionByKode } from '../../lookups/wilayah.js';

export interface AddressParts {
  jalan: string | null;
  nomor: string | null;
  rt: string | null;
  rw: string | null;
  kelurahan: string | null;
  kecamatan: string | null;
  kabupaten_kota: string | null;
  provinsi: string | null;
  kode_pos: string | null;
}

/** What the model read for one part, what the official data says, and whether they agree. */
export interface VerifiedPart {
  model: string | null;
  official: string | null;
  agrees: boolean | null;
}

export interface ResolvedAddress {
  /** The parts, with kabupaten_kota and provinsi replaced by the official names (null when unresolved). */
  parsed: AddressParts;
  wilayah: { kode: string; kabupaten_kota: string | null; provinsi: string; lat: number; lng: number } | null;
  /** The official name of each part the model read differently (a wrong region or a misspelling); else null. */
  verified: { kabupaten_kota: string | null; provinsi: string | null };
  /** For each part: what the model read, the official name, and whether they agree. */
  checks: { kabupaten_kota: VerifiedPart; provinsi: VerifiedPart };
  confidence: number;
  notes: string[];
}

/** How much a name match says: an official or well-known name counts fully, a typo match less. */
const MATCH_WEIGHT: Record<MatchKind, number> = {
  exact: 1,
  alias: 1,
  ibukota: 0.85,
  prefix: 0.75,
  word: 0.7,
  typo: 0.6,
};

/** Candidates for the kabupaten/kota: by name, and the kabupaten/kota of the kecamatan named. */
function kabupatenCandidates(
  parts: AddressParts,
): Array<{ region: Region; weight: number; byKecamatan: boolean }> {
  const named: RegionMatch[] = parts.kabupaten_kota
    ? searchRegions(parts.kabupaten_kota, { level: 'kabupaten_kota', limit: 8 })
    : [];
  const top = named[0]?.score ?? 0;
  const list = named
    .filter((m) => m.score >= top - 15)
    .map((m) => ({ region: m.region, weight: MATCH_WEIGHT[m.match], byKecamatan: false }));
  if (list.length === 0 && parts.kecamatan) {
    for (const k of kecamatanNamed(parts.kecamatan)) {
      const region = regionByKode(k.induk);
      if (region) list.push({ region, weight: 0.5, byKecamatan: true });
    }
  }
  return list;
}

/** Resolves the model's parts against the official data. */
export function resolveAddress(parts: AddressParts): ResolvedAddress {
  const notes: string[] = [];
  const province = parts.provinsi
    ? searchRegions(parts.provinsi, { level: 'provinsi', limit: 1 })[0]
    : undefined;
  const kecamatanHome = new Set((parts.kecamatan ? kecamatanNamed(parts.kecamatan) : []).map((k) => k.induk));

  // Each candidate earns points for its own name match, for lying in the province written and for holding the
  // kecamatan written; the best one is the kabupaten/kota.
  const ranked = kabupatenCandidates(parts)
    .map((c) => ({
      ...c,
      inProvince: province !== undefined && c.region.induk === province.region.kode,
      holdsKecamatan: kecamatanHome.has(c.region.kode),
    }))
    .map((c) => ({ ...c, points: c.weight + (c.inProvince ? 0.5 : 0) + (c.holdsKecamatan ? 0.5 : 0) }))
    .sort((a, b) => b.points - a.points);
  const best = ranked[0];
  const ambiguous = best !== undefined && ranked[1] !== undefined && ranked[1].points === best.points;

  const kab = best?.region;
  const officialProvince = kab ? regionByKode(kab.induk ?? '') : province?.region;

  let confidence = 0;
  if (kab && best) {
    confidence = 0.55 * best.weight;
    if (best.byKecamatan) notes.push(`kabupaten_kota inferred from kecamatan ${parts.kecamatan}`);
    if (ambiguous) {
      confidence -= 0.15;
      notes.push(`"${parts.kabupaten_kota ?? parts.kecamatan}" fits several regions; chose ${kab.nama}`);
    }
  } else if (officialProvince) {
    confidence = 0.25 * (province ? MATCH_WEIGHT[province.match] : 0);
  }
  if (parts.kabupaten_kota && !kab)
    notes.push(`kabupaten_kota "${parts.kabupaten_kota}" is not an official name`);
  if (parts.provinsi && !province) notes.push(`provinsi "${parts.provinsi}" is not an official name`);

  const provinceAgrees = province && officialProvince ? province.region.kode === officialProvince.kode : null;
  if (provinceAgrees === false && kab && officialProvince) {
    notes.push(`${kab.nama} lies in ${officialProvince.nama}, not in ${province?.region.nama} as written`);
    confidence -= 0.2;
  } else if (provinceAgrees === true && kab) {
    confidence += 0.25 * (province ? MATCH_WEIGHT[province.match] : 0);
  } else if (!parts.provinsi && kab) {
    confidence += 0.1;
  }

  if (parts.kecamatan) {
    if (kab && kecamatanHome.has(kab.kode)) confidence += 0.2;
    else if (kecamatanHome.size === 0)
      notes.push(`kecamatan "${parts.kecamatan}" is not in the official list`);
    else if (kab) {
      notes.push(`no kecamatan ${parts.kecamatan} in ${kab.nama}`);
      confidence -= 0.1;
    }
  }
  if (kab && parts.kabupaten_kota && best && !best.byKecamatan && best.weight < 1) {
    notes.push(`kabupaten_kota "${parts.kabupaten_kota}" read as ${kab.nama}`);
  }

  const where = kab ?? officialProvince;
  const kabupatenAgrees = parts.kabupaten_kota === null ? null : kab !== undefined && best?.weight === 1;
  // A province name that only matched as a typo was corrected too, though it names the right province.
  const provinceSpelled = province !== undefined && MATCH_WEIGHT[province.match] === 1;
  const provinceCorrected =
    parts.provinsi !== null && officialProvince !== undefined && !(provinceAgrees && provinceSpelled);
  return {
    parsed: { ...parts, kabupaten_kota: kab?.nama ?? null, provinsi: officialProvince?.nama ?? null },
    wilayah:
      where && officialProvince
        ? {
            kode: where.kode,
            kabupaten_kota: kab?.nama ?? null,
            provinsi: officialProvince.nama,
            lat: where.lat,
            lng: where.lng,
          }
        : null,
    verified: {
      kabupaten_kota: kabupatenAgrees === false && kab ? kab.nama : null,
      provinsi: provinceCorrected ? officialProvince.nama : null,
    },
    checks: {
      kabupaten_kota: { model: parts.kabupaten_kota, official: kab?.nama ?? null, agrees: kabupatenAgrees },
      provinsi: { model: parts.provinsi, official: officialProvince?.nama ?? null, agrees: provinceAgrees },
    },
    confidence: Math.round(Math.min(1, Math.max(0, confidence)) * 100) / 100,
    notes,
  };
}
