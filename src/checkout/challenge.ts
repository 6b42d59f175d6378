/**
 * The 402 answer: the price and every rail the route accepts, each rail contributing its own headers and body
 * entry. It answers an unpaid call, and a payment a rail refused (with that refusal's code and reason), so the
 * caller always gets a fresh challenge to pay.
 */
import { type CatalogEntry, idField, type PriceClass, type Quote } from '../catalog/types.js';
import { ApiError } from '../http/errors.js';
import type { RailRegistry } from '../rails/registry.js';
import type { PaidRequest, PaymentRefusal, Pricing } from '../rails/types.js';

/** The offer and its price as the rails see them. */
export const pricingOf = (entry: CatalogEntry, quote: Quote): Pricing => ({
  offerId: entry.id,
  description: entry.name,
  quote,
  inputSchema: entry.input,
});

export async function paymentRequired(
  rails: RailRegistry,
  entry: CatalogEntry,
  quoteFor: (pc: PriceClass) => Quote,
  req: PaidRequest,
  refusal?: PaymentRefusal,
): Promise<ApiError> {
  const headers: Record<string, string> = { 'cache-control': 'no-store' };
  const accepted = rails.accepting(req.path);
  const offered = [];
  const challenges = await Promise.all(
    accepted.map((rail) => rail.challenge(pricingOf(entry, quoteFor(rail.priceClass)), req, refusal)),
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
