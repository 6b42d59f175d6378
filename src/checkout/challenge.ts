/**
 * The 402 answer: the price and every rail the route accepts, each rail contributing its own headers and body
 * entry. It answers an unpaid call, and a payment a rail refused (with that refusal's code and reason), so the
 * caller always gets a fresh challenge to pay.
 */
import { type CatalogEntry, idField, type PriceClass, type Quote } from '../catalog/types.js';
import { ApiError } from '../http/errors.js';
import type { RailRegistry, WalletOff } from '../rails/registry.js';
import type { PaidRequest, PaymentRefusal, Pricing } from '../rails/types.js';

/** The offer and its price as the rails see them. */
export const pricingOf = (entry: CatalogEntry, quote: Quote, firstTranche?: number): Pricing => ({
  offerId: entry.id,
  description: entry.name,
  quote,
  inputSchema: entry.input,
  ...(firstTranche !== undefined ? { firstTrancheMicroUsd: firstTranche } : {}),
});

/**
 * The answer of an unpaid call on a wallet route whose rail is off here (a 503, never a 402 nobody can pay by
 * wallet): it names the settings that turn the rail on, and the prepaid key that pays the route meanwhile.
 */
export function walletRailOff(path: string, off: WalletOff): ApiError {
  return new ApiError(
    'not_configured',
    `wallet payments on /${off.family}/* are not configured on this server (the operator turns them on with ${off.settings.join(' or ')}); a prepaid key (Authorization: Bearer <key>) pays ${path} meanwhile`,
    { rail: 'x402', family: off.family, settings: off.settings },
  );
}

export async function paymentRequired(
  rails: RailRegistry,
  entry: CatalogEntry,
  quoteFor: (pc: PriceClass) => Quote,
  req: PaidRequest,
  refusal?: PaymentRefusal,
  /** What a metering rail asks first, when the call's stream would be metered. */
  firstTranche?: number,
): Promise<ApiError> {
  const headers: Record<string, string> = { 'cache-control': 'no-store' };
  const off = rails.walletOff(req.path);
  if (off && !refusal) return walletRailOff(req.path, off);
  const accepted = rails.accepting(req.path);
  if (accepted.length === 0) {
    return new ApiError('not_configured', `no payment rail can pay ${req.path} on this server`);
  }
  const offered = [];
  const challenges = await Promise.all(
    accepted.map((rail) =>
      rail.challenge(pricingOf(entry, quoteFor(rail.priceClass), firstTranche), req, refusal),
    ),
  );
  for (const [i, challenge] of challenges.entries()) {
    if (!challenge) continue;
    for (const [name, value] of challenge.headers) {
      const key = name.toLowerCase();
      // Several challenges share one header line, comma-separated, as HTTP allows for WWW-Authenticate.
      headers[key] = headers[key] ? `${headers[key]}, ${value}` : value;
    }
    const rail = accepted[i];
    if (rail) offered.push({ ...challenge.body, price_micro_usd: quoteFor(rail.priceClass).costMicroUsd });
  }
  // The headline quote is the cheapest rail's; each rail's own price is in its entry.
  const quote = accepted
    .map((r) => quoteFor(r.priceClass))
    .reduce((a, b) => (b.costMicroUsd < a.costMicroUsd ? b : a));
  const details = {
    [idField(entry)]: entry.id,
    quote,
    rails: offered,
    charged_only_on_success: true,
    ...(refusal ? { refused: refusal.details ?? null } : {}),
  };
  if (refusal) {
    return new ApiError(
      refusal.code,
      `${refusal.message}; nothing was charged. Pay again on one of the listed rails`,
      details,
      {
        ...refusal.headers,
        ...headers,
      },
    );
  }
  return new ApiError(
    'payment_required',
    `${entry.id} costs ${quote.costMicroUsd} micro-USD for this input; pay on one of the listed rails`,
    details,
    headers,
  );
}
