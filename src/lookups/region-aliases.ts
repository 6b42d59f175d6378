/** Names people write for regions that are not the official name (data/region-aliases.json), with their sources. */
import { readFileSync } from 'node:fs';
import { shippedFile } from '../shipped-files.js';

export type AliasKind = 'abbreviation' | 'colloquial' | 'former';

export interface RegionAlias {
  /** As people write it, lower case: "solo", "ujung pandang". */
  alias: string;
  /** The official kode of the region it means today. */
  kode: string;
  kind: AliasKind;
  /** A public page documenting the usage. */
  source: string;
}

let table: ReadonlyArray<RegionAlias & { compact: string }> | undefined;

/** Every alias, with its spacing-blind form (`ujungpandang`), loaded once. */
export function regionAliases(): ReadonlyArray<RegionAlias & { compact: string }> {
  if (table) return table;
  const file = JSON.parse(readFileSync(shippedFile('lookups/data/region-aliases.json'), 'utf8')) as {
    aliases: RegionAlias[];
  };
  table = file.aliases.map((a) => ({ ...a, compact: a.alias.toLowerCase().replace(/[^a-z0-9]+/g, '') }));
  return table;
}
