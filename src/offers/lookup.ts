/** The lookup offer: a free lookup's module (src/lookups) run through the checkout; its answer is the lookup's own. */
import type { LookupEntry } from '../catalog/types.js';
import type { Offer } from '../checkout/offer.js';
import type { Lookup } from '../lookups/lookup.js';

/** The lookup's short name: `tools/wilayah` → `wilayah`. */
export function lookupName(entry: LookupEntry): string {
  return entry.id.slice('tools/'.length);
}

export function createLookupOffer(entry: LookupEntry, lookup: Lookup): Offer {
  return {
    entry,
    run: async (input) => ({ kind: 'json', body: lookup.run(input) }),
  };
}
