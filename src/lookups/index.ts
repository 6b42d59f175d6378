/**
 * The free lookups this server runs, by name (the catalog's `tools/<name>` without the prefix); each catalog entry
 * of catalog/data/lookups.json has one here.
 */
import type { Lookup } from './lookup.js';
import { prayerTimesLookup } from './prayer-times-lookup.js';
import { qrisLookup } from './qris-lookup.js';
import { terbilangLookup } from './terbilang-lookup.js';
import { verifyNikLookup } from './verify-nik-lookup.js';
import { verifyNpwpLookup } from './verify-npwp-lookup.js';
import { wilayahLookup } from './wilayah-lookup.js';

export const LOOKUPS: Readonly<Record<string, Lookup>> = {
  wilayah: wilayahLookup,
  'prayer-times': prayerTimesLookup,
  'verify-nik': verifyNikLookup,
  'verify-npwp': verifyNpwpLookup,
  qris: qrisLookup,
  terbilang: terbilangLookup,
};
