/** Kecamatan by name: every kecamatan of the official list whose name is the one written (case, spacing, "Kec." aside). */
import { allKecamatan, type Kecamatan } from './wilayah.js';

let byName: Map<string, Kecamatan[]> | undefined;

/** "Kec. Coblong", "COBLONG", "co blong" → "coblong". */
export function kecamatanKey(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/^\s*(kecamatan|kec\.?)\s+/, '')
    .replace(/[^a-z0-9]+/g, '');
}

/** The kecamatan named `name`, in code order; empty when none is. */
export function kecamatanNamed(name: string): readonly Kecamatan[] {
  if (!byName) {
    byName = new Map();
    for (const k of allKecamatan()) {
      const key = kecamatanKey(k.nama);
      const list = byName.get(key);
      if (list) list.push(k);
      else byName.set(key, [k]);
    }
  }
  return byName.get(kecamatanKey(name)) ?? [];
}
