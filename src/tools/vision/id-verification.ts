/**
 * The structural check of what a model read from an identity document: the KTP's NIK through the verify-nik logic
 * (region, birth date, serial) and its agreement with the birth date, gender and region printed beside it; the
 * NPWP's structure through the verify-npwp logic; the KK number's layout. A signal, never proof of authenticity.
 */
import { dateAtOffset, parseIsoDate } from '../../lookups/dates.js';
import { type Gender, normalizeNik, verifyNik } from '../../lookups/nik.js';
import { normalizeNpwp, verifyNpwp } from '../../lookups/npwp.js';
import { searchRegions } from '../../lookups/region-search.js';
import { regionByKode } from '../../lookups/wilayah.js';

export const DOCUMENT_TYPES = ['ktp', 'sim', 'kk', 'npwp', 'passport', 'driving_licence', 'other'] as const;

export interface IdFields {
  document_type: (typeof DOCUMENT_TYPES)[number];
  issuing_country: string | null;
  id_number: string | null;
  full_name: string | null;
  birth_place: string | null;
  birth_date: string | null;
  gender: Gender | null;
  address: string | null;
  rt_rw: string | null;
  village: string | null;
  district: string | null;
  city: string | null;
  province: string | null;
  expiry_date: string | null;
  blood_type: string | null;
  nationality: string | null;
  religion: string | null;
  marital_status: string | null;
  sim_class: string | null;
}

export interface IdVerification {
  /** Every check passed and everything compared agrees; null when this document has no number to check. */
  ok: boolean | null;
  format: string | null;
  region: { kode: string; kabupaten_kota: string | null; provinsi: string | null } | null;
  /** What the number encodes. */
  birth_date: string | null;
  gender: Gender | null;
  agrees: { birth_date: boolean | null; gender: boolean | null };
  notes: string[];
}

export const STRUCTURAL_NOTE =
  'A structural signal, not proof: the number was checked for a valid layout and agreement with the other ' +
  'fields read from the same image. It does not show that the document is genuine, was issued, or belongs to ' +
  'the person holding it; only the issuer (Dukcapil, DJP, Polri, the passport authority) can confirm that.';

/** Whether the place printed on the card is the region the NIK encodes (null when the card shows none). */
function placeAgrees(
  printed: string | null,
  kode: string,
  level: 'provinsi' | 'kabupaten_kota',
): boolean | null {
  if (!printed) return null;
  const found = searchRegions(printed, { level, limit: 3 });
  if (found.length === 0) return null;
  return found.some((m) => m.region.kode === kode);
}

function checkKtp(fields: IdFields, digits: string): IdVerification {
  const claimed = fields.birth_date ? parseIsoDate(fields.birth_date) : undefined;
  const nik = verifyNik(digits, { birthDate: claimed, gender: fields.gender ?? undefined }, dateAtOffset(7));
  const notes = [...nik.notes, ...nik.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`)];
  if (fields.birth_date && !claimed) notes.push(`birth_date "${fields.birth_date}" is not a real date`);
  const kabKode = nik.region.current_kode ?? nik.region.kode.slice(0, 5);
  const cityAgrees = placeAgrees(fields.city, kabKode, 'kabupaten_kota');
  const provinceAgrees = placeAgrees(fields.province, nik.region.kode.slice(0, 2), 'provinsi');
  if (cityAgrees === false)
    notes.push(`the NIK's region is ${nik.region.kabupaten_kota}, the card says ${fields.city}`);
  if (provinceAgrees === false)
    notes.push(`the NIK's province is ${nik.region.provinsi}, the card says ${fields.province}`);
  return {
    ok: nik.ok && cityAgrees !== false && provinceAgrees !== false,
    format: 'nik16',
    region: {
      kode: nik.region.kode,
      kabupaten_kota: nik.region.kabupaten_kota,
      provinsi: nik.region.provinsi,
    },
    birth_date: nik.birth_date,
    gender: nik.gender,
    agrees: nik.agrees,
    notes,
  };
}

function checkNpwp(digits: string): IdVerification {
  const npwp = verifyNpwp(digits, dateAtOffset(7));
  const notes = [...npwp.notes, ...npwp.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`)];
  const nikRegion = npwp.nik?.region;
  return {
    ok: npwp.ok,
    format: npwp.format,
    region: nikRegion
      ? { kode: nikRegion.kode, kabupaten_kota: nikRegion.kabupaten_kota, provinsi: nikRegion.provinsi }
      : null,
    birth_date: npwp.nik?.birth_date ?? null,
    gender: npwp.nik?.gender ?? null,
    agrees: { birth_date: null, gender: null },
    notes,
  };
}

/** A KK number: 16 digits whose first four name a kabupaten/kota. */
function checkKk(digits: string): IdVerification {
  const kab = regionByKode(`${digits.slice(0, 2)}.${digits.slice(2, 4)}`);
  const province = regionByKode(digits.slice(0, 2));
  const notes = kab ? [] : [`digits 1-4 (${digits.slice(0, 4)}) name no current kabupaten/kota`];
  return {
    ok: kab !== undefined,
    format: 'kk16',
    region: {
      kode: digits.slice(0, 6).replace(/(\d{2})(?=\d)/g, '$1.'),
      kabupaten_kota: kab?.nama ?? null,
      provinsi: province?.nama ?? null,
    },
    birth_date: null,
    gender: null,
    agrees: { birth_date: null, gender: null },
    notes,
  };
}

function unchecked(note: string): IdVerification {
  return {
    ok: null,
    format: null,
    region: null,
    birth_date: null,
    gender: null,
    agrees: { birth_date: null, gender: null },
    notes: [note],
  };
}

/** The structural check of the fields read from one document. */
export function verifyIdFields(fields: IdFields): IdVerification {
  const number = fields.id_number;
  const failed = (format: string, message: string): IdVerification => ({
    ...unchecked(`id_number ${message}`),
    ok: false,
    format,
  });
  switch (fields.document_type) {
    case 'ktp': {
      if (!number) return unchecked('no NIK could be read');
      const nik = normalizeNik(number);
      return nik.ok ? checkKtp(fields, nik.digits) : failed('nik16', nik.message);
    }
    case 'npwp': {
      if (!number) return unchecked('no NPWP could be read');
      const npwp = normalizeNpwp(number);
      return npwp.ok ? checkNpwp(npwp.digits) : failed('npwp', npwp.message);
    }
    case 'kk': {
      if (!number) return unchecked('no KK number could be read');
      const digits = number.replace(/[\s.-]/g, '');
      return /^\d{16}$/.test(digits) ? checkKk(digits) : failed('kk16', 'must be 16 digits');
    }
    default:
      return unchecked(
        `kasir has no structural check for the number of a ${fields.document_type.replace('_', ' ')}`,
      );
  }
}
