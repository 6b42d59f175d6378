/** The rails enabled on this server, in the order a request's credential is matched against them. */
import { X402_FAMILIES } from '../config-x402.js';
import { CHANNEL_ROUTES } from './channel/paths.js';
import type { PaidRequest, Rail } from './types.js';

export interface RailRegistry {
  all(): readonly Rail[];
  /** The rails a route accepts (see ROUTE_RAILS), in matching order. */
  accepting(path: string): readonly Rail[];
  /** The accepted rail whose credential the request carries, or undefined (then the answer is a 402). */
  carriedBy(req: PaidRequest): Rail | undefined;
}

/**
 * Which rails each route family accepts: the per-chain families only their wallet rail, the channel variants only
 * the channel rail, every other /v1/* route all of them. A route family added later names its rails here, not in the checkout.
 */
export const ROUTE_RAILS: ReadonlyArray<readonly [prefix: string, rails: readonly string[] | '*']> = [
  ...X402_FAMILIES.map((family) => [`/${family}/`, ['x402']] as const),
  // The payment-channel variants of the inference routes (/v1/channels/{id}/infer, …/chat/completions).
  [CHANNEL_ROUTES, ['channel']],
  ['/', '*'],
];

export function createRailRegistry(rails: Rail[]): RailRegistry {
  const ids = new Set<string>();
  for (const r of rails) {
    if (ids.has(r.id)) throw new Error(`rail ${r.id} registered twice`);
    ids.add(r.id);
  }
  const byPrefix = ROUTE_RAILS.map(
    ([prefix, ids]) => [prefix, ids === '*' ? rails : rails.filter((r) => ids.includes(r.id))] as const,
  );
  const accepting = (path: string) => byPrefix.find(([prefix]) => path.startsWith(prefix))?.[1] ?? rails;
  return {
    all: () => rails,
    accepting,
    carriedBy: (req) => accepting(req.path).find((r) => r.carries(req)),
  };
}
