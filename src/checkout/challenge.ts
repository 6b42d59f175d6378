/** The 402 answer: the price and every payable rail, each rail contributing its own headers and body entry. */
import type { CatalogEntry, PriceClass, Quote } from '../catalog/types.js';
import { ApiError } from '../http/errors.js';
import type { RailRegistry } from '../rails/registry.js';
import type { PaidRequest } from '../rails/types.js';

export function paymentRequired(
  rails: RailRegistry,
  entry: CatalogEntry,
  quoteFor: (pc: PriceClass) => Quote,
  req: PaidRequest,
): ApiError {
  const headers: Record<string, string> = { 'cache-control': 'no-store' };
  const offered = [];
  for (const rail of rails.all()) {
    const quote = quoteFor(rail.priceClass);
    const challenge = rail.challenge({ offerId: entry.id, description: entry.name, quote }, req);
    if (!challenge) continue;
    for (const [name, value] of challenge.headers) {
      const key = name.toLowerCase();
      // Several challenges share one header line, comma-separated, as HTTP allows for WWW-Authenticate.
      headers[key] = headers[key] ? `${headers[key]}, ${value}` : value;
    }
    offered.push({ ...challenge.body, price_micro_usd: quote.costMicroUsd });
  }
  // The headline quote is the cheapest rail's; each rail's own price is in its entry.
  const quote = rails
    .all()
    .map((r) => quoteFor(r.priceClass))
    .reduce((a, b) => (b.costMicroUsd < a.costMicroUsd ? b : a));
  return new ApiError(
    'payment_required',
    `${entry.id} costs ${quote.costMicroUsd} micro-USD for this input; pay on one of the listed rails`,
    {
      [entry.kind === 'tool' ? 'tool' : 'model']: entry.id,
      quote,
      rails: offered,
      charged_only_on_success: true,
    },
    headers,
  );
}
