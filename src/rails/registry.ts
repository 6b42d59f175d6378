/** The rails enabled on this server, in the order a request's credential is matched against them. */
import type { PaidRequest, Rail } from './types.js';

export interface RailRegistry {
  all(): readonly Rail[];
  /** The rail whose credential the request carries, or undefined (then the answer is a 402). */
  carriedBy(req: PaidRequest): Rail | undefined;
}

export function createRailRegistry(rails: Rail[]): RailRegistry {
  const ids = new Set<string>();
  for (const r of rails) {
    if (ids.has(r.id)) throw new Error(`rail ${r.id} registered twice`);
    ids.add(r.id);
  }
  return {
    all: () => rails,
    carriedBy: (req) => rails.find((r) => r.carries(req)),
  };
}
