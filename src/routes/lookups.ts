/**
 * GET /v1/tools/{wilayah,prayer-times,verify-nik,verify-npwp,qris,terbilang}: the free lookups, catalog entries
 * under the free price rule given through the checkout (validated against their catalog schema, no payment), each
 * documented from its entry and its module's answer. Mounted from the offer registry's list, the one MCP tools/list,
 * skill.md and llms.txt read: a lookup is served and documented here exactly when it is offered.
 */
import type { CheckoutDeps } from '../checkout/pipeline.js';
import { sell } from '../checkout/pipeline.js';
import type { Deps } from '../deps.js';
import { exchangeOf } from '../http/exchange.js';
import type { LaneApp } from '../http/lanes.js';
import { pickErrors, queryParameters } from '../http/openapi.js';
import { LOOKUPS } from '../lookups/index.js';
import { lookupName } from '../offers/lookup.js';

const NO_BODY = Buffer.alloc(0);

/** A parameter given once is its value; one repeated, the list of its values (which a schema of strings refuses). */
function queryInput(queries: Record<string, string[]>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(queries).map(([k, v]) => [k, v.length === 1 ? v[0] : v]));
}

export function mountLookupRoutes(app: LaneApp, deps: Deps, checkoutDeps: CheckoutDeps): void {
  for (const entry of deps.offers.offered()) {
    if (entry.kind !== 'lookup') continue;
    const lookup = LOOKUPS[lookupName(entry)];
    if (lookup) {
      app.openAPIRegistry.registerPath({
        method: 'get',
        path: entry.path,
        tags: ['lookups'],
        summary: entry.summary,
        description: entry.details,
        parameters: queryParameters(entry.input),
        responses: {
          200: {
            description: lookup.answer.description,
            content: { 'application/json': { schema: lookup.answer.schema } },
          },
          ...pickErrors(...lookup.errors, 429),
        },
      });
    }
    // The query parameters are the input, which the checkout validates against the entry's schema.
    app.get(entry.path, (c) =>
      sell(exchangeOf(c), checkoutDeps, async () => ({
        offer: deps.offers.offerFor(entry),
        input: queryInput(c.req.queries()),
        rawBody: NO_BODY,
      })),
    );
  }
}
