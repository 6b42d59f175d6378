/** The rails enabled on this server, in the order a request's credential is matched against them. */
import { X402_FAMILIES, X402_FAMILY_SETTINGS, type X402Family } from '../config/x402.js';
import { CHANNEL_ROUTES } from './channel/paths.js';
import type { PaidRequest, Rail } from './types.js';

export interface RailRegistry {
  all(): readonly Rail[];
  /** The rails a route accepts (see ROUTE_RAILS) and that can pay it here, in matching order. */
  accepting(path: string): readonly Rail[];
  /**
   * On a wallet route (/x402/*, /a402/*, /b402/*) whose wallet rail is off here: what turns it on (the route then
   * answers an unpaid call with a 503 naming it; a prepaid key still pays it). Null on every other route.
   */
  walletOff(path: string): WalletOff | null;
  /** The accepted rail whose credential the request carries, or undefined (then the answer is a 402). */
  carriedBy(req: PaidRequest): Rail | undefined;
}

export interface WalletOff {
  family: X402Family;
  /** The settings that turn the family's chains on. */
  settings: readonly string[];
}

/**
 * Which rails each route family accepts: the per-chain families their wallet rail and a prepaid key (the spec: a key
 * pays "any paid route"), the channel variants only the channel rail, every other /v1/* route all of them. A route family added later names its rails here, not in the checkout.
 */
export const ROUTE_RAILS: ReadonlyArray<readonly [prefix: string, rails: readonly string[] | '*']> = [
  ...X402_FAMILIES.map((family) => [`/${family}/`, ['x402', 'prepaid']] as const),
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
  // A rail can decline a route of its family it cannot pay here (the x402 rail: a family none of its chains is on).
  const accepting = (path: string) =>
    (byPrefix.find(([prefix]) => path.startsWith(prefix))?.[1] ?? rails).filter(
      (r) => r.serves?.(path) ?? true,
    );
  const families = X402_FAMILIES.map((family) => [family, `/${family}/`] as const);
  return {
    all: () => rails,
    accepting,
    walletOff(path) {
      const family = families.find(([, prefix]) => path.startsWith(prefix))?.[0];
      if (!family || accepting(path).some((r) => r.id === 'x402')) return null;
      return { family, settings: X402_FAMILY_SETTINGS[family] };
    },
    carriedBy: (req) => accepting(req.path).find((r) => r.carries(req)),
  };
}
