/** What the checkout is given: its dependencies, and one sale (the offer, its input and how the route prices it). */
import type { Catalog, Quote } from '../catalog/types.js';
import type { Exchange } from '../http/exchange.js';
import type { Logger } from '../http/logger.js';
import type { Metrics } from '../http/metrics.js';
import type { UsageInsert } from '../ledger/books.js';
import type { RailRegistry } from '../rails/registry.js';
import type { Db } from '../store/db.js';
import type { JobRunner } from './jobs.js';
import type { Offer } from './offer.js';
import type { MeteringSettings } from './stream-tab.js';

export interface CheckoutDeps {
  catalog: Catalog;
  rails: RailRegistry;
  db: Db;
  metrics: Metrics;
  log: Logger;
  publicBaseUrl: string;
  /** Runs async jobs (`Prefer: respond-async`); absent, every call is answered synchronously. */
  jobs?: JobRunner;
  /** How streams are metered on rails that can meter them (payment channels); absent, none is. */
  metering?: MeteringSettings;
  /**
   * Queues a free call's usage row, to be written with others (it must not throw, nor make the call wait for a database
   * write); absent, free calls write none.
   */
  recordUsage?: (usage: UsageInsert) => void;
  /** Answers a request that only manages a payment channel (no call to sell), else null; absent, channels are off. */
  manage?: (x: Exchange) => Promise<Response> | null;
}

export interface Sale {
  offer: Offer;
  /** The parsed request body (or query), before validation. */
  input: Record<string, unknown>;
  /** The raw body bytes, for Idempotency-Key comparison. */
  rawBody: Buffer;
  /**
   * The route's own price for the validated call, from the catalog's quote (the generic x402 routes: a flat price,
   * refusing with a 400 a call that would cost more). Absent: the catalog's quote.
   */
  price?: (quote: Quote) => Quote;
  /** Answer with the offer's JSON result under `output` instead of spread beside the id and cost (wallet routes). */
  nestOutput?: boolean;
}
