/**
 * The one call pipeline: validate → quote → X-Max-Price → rail → idempotency → authorize → run →
 * capture | void → respond. Every route of a catalog entry sells through `sell()`; no handler touches money itself.
 * A free entry (the free price rule) is validated and run the same way, with no payment step at all (free-call.ts);
 * an authorized call runs, settles and answers in paid-call.ts.
 */
import { type Catalog, type CatalogEntry, isFree, type PriceClass, type Quote } from '../catalog/types.js';
import { ApiError, invalidInput } from '../http/errors.js';
import type { Exchange } from '../http/exchange.js';
import { type Authorization, PaymentRefusal, type Rail } from '../rails/types.js';
import { paymentRequired, pricingOf, walletRailOff } from './challenge.js';
import { ExchangeRequest } from './exchange-request.js';
import { give } from './free-call.js';
import { abandonIdempotent, beginIdempotent, readIdempotencyKey, replayHeaders } from './idempotency.js';
import { wantsAsync } from './jobs.js';
import { assertWithinMaxPrice, parseMaxPrice } from './max-price.js';
import { PaidCall, withHeaders } from './paid-call.js';
import type { CheckoutDeps, Sale } from './sale.js';
import type { MeteredPrice } from './stream-tab.js';

export type { CheckoutDeps, Sale } from './sale.js';

/** The key a payment's own answer is stored under when its caller sent no Idempotency-Key (see Rail.replaysByPayment). */
const PAYMENT_REPLAY_KEY = 'payment';

/** The quote per price class, each computed once (a 402 lists every rail's); a model's came with its validation. */
function memoQuote(catalog: Catalog, entry: CatalogEntry, input: Record<string, unknown>, known?: Quote) {
  if (known) return (_pc: PriceClass): Quote => known;
  const cache: Partial<Record<PriceClass, Quote>> = {};
  return (pc: PriceClass): Quote => {
    cache[pc] ??= catalog.quote(entry, input, pc);
    return cache[pc];
  };
}

/**
 * Sells one call to the caller of `x`: the one entry of every paid route. `read` parses the request into the
 * sale (the offer and its input); the checkout does the rest. An error raised before any payment was
 * authorized (bad input, an unknown model, a price above X-Max-Price, …) still carries what the caller's rail
 * states on every response (the prepaid rail: nothing charged, and the balance); an error after an
 * authorization already carries the rail's receipt.
 */
export function sell(x: Exchange, deps: CheckoutDeps, read: () => Promise<Sale>): Promise<Response> {
  const managed = deps.manage?.(x);
  if (managed) return managed;
  const unpaid = async (err: unknown): Promise<never> => {
    if (!(err instanceof ApiError)) throw err;
    const req = new ExchangeRequest(x, deps.publicBaseUrl);
    // A failed balance read must not replace the error the caller is owed.
    const headers = await deps.rails
      .carriedBy(req)
      ?.unpaidHeaders?.(req, err.headers)
      .catch(() => null);
    throw headers ? withHeaders(err, headers) : err;
  };
  // Catch handlers rather than an enclosing try: on the success path (every paid call) they add one promise. A free
  // call involves no rail, so its answers carry no rail's headers.
  return read().then(
    (sale) => (isFree(sale.offer.entry) ? give(x, deps, sale) : checkout(x, deps, sale).catch(unpaid)),
    unpaid,
  );
}

/** Validates, quotes and authorizes `sale`, then runs it (see `sell`). */
async function checkout(x: Exchange, deps: CheckoutDeps, sale: Sale): Promise<Response> {
  const started = performance.now();
  const { entry } = sale.offer;
  // A long input's token count is made a slice at a time, so one large body cannot hold every other request up.
  const prepared = deps.catalog.prepare?.(entry, sale.input, sale.rawBody.length);
  if (prepared) await prepared;
  const checked = deps.catalog.validate(entry, sale.input);
  if (!checked.ok) throw invalidInput(checked.errors);
  const input = checked.value;
  const maxPrice = parseMaxPrice(x.header('x-max-price'));
  const idempotencyKey = readIdempotencyKey(x.header('idempotency-key'));
  let catalogQuote = memoQuote(deps.catalog, entry, input, checked.modelQuote);
  const { price } = sale;
  const quoteFor = price ? (pc: PriceClass) => price(catalogQuote(pc)) : (pc: PriceClass) => catalogQuote(pc);
  // A route's own price may refuse the input (a generic route's flat price): said before anything else.
  if (price) quoteFor('wallet');
  const req = new ExchangeRequest(x, deps.publicBaseUrl, sale.rawBody);
  sale.offer.preflight?.(input);
  // An offer whose price depends on its files (an audio's length) measures them now, and is quoted on that.
  if (sale.offer.measure && (await sale.offer.measure(input)))
    catalogQuote = memoQuote(deps.catalog, entry, input);

  const rail = deps.rails.carriedBy(req);
  if (!rail) {
    const off = deps.rails.walletOff(x.path);
    if (off) throw walletRailOff(x.path, off);
    const cheapest = Math.min(
      ...deps.rails.accepting(x.path).map((r) => quoteFor(r.priceClass).costMicroUsd),
    );
    assertWithinMaxPrice(maxPrice, cheapest, entry.id);
    throw await paymentRequired(
      deps.rails,
      entry,
      quoteFor,
      req,
      undefined,
      firstTranche(deps, sale, input, quoteFor),
    );
  }
  const quote = quoteFor(rail.priceClass);
  assertWithinMaxPrice(maxPrice, quote.costMicroUsd, entry.id);
  const payer = await rail.identify(req);
  // An async job, when asked for and both the offer and the rail can carry one (else the call runs synchronously).
  const { job } = sale.offer;
  if (deps.jobs && job && rail.jobs && wantsAsync(x)) {
    const pricing = pricingOf(entry, quote);
    return deps.jobs.start202(
      x,
      req,
      sale.offer,
      job,
      { id: rail.id, jobs: rail.jobs },
      payer,
      pricing,
      input,
    );
  }

  let recordKey: string | null = null;
  // A rail whose credential is one payment stores its answer for the same payment sent again, key or not.
  const key = idempotencyKey ?? (rail.replaysByPayment ? PAYMENT_REPLAY_KEY : null);
  if (key) {
    const start = await beginIdempotent(deps.db, {
      route: x.path,
      scope: `${rail.id}:${payer.scope}`,
      key,
      body: sale.rawBody,
    }).catch((err: unknown) => {
      // Without a key of the caller's, the payment itself says what is wrong with sending it again (spent on another
      // body, or its call still running): the rail refuses it below, with a fresh challenge.
      if (!idempotencyKey && err instanceof ApiError) return null;
      throw err;
    });
    if (start?.kind === 'replay') {
      const now = await rail.unpaidHeaders?.(req, {}).catch(() => null);
      return x.send(
        start.response.status,
        start.response.body,
        replayHeaders(start.response.headers, now ?? null),
      );
    }
    recordKey = start?.recordKey ?? null;
  }

  const pricing = pricingOf(entry, quote);
  // A payment the rail refuses (or fails to settle) is answered with a fresh 402 listing every rail again.
  const refused = (refusal: PaymentRefusal) =>
    paymentRequired(deps.rails, entry, quoteFor, req, refusal, firstTranche(deps, sale, input, quoteFor));
  const metered = meteredPrice(deps, rail, sale, input, quote);
  let auth: Authorization;
  try {
    auth =
      metered && rail.authorizeMetered
        ? await rail.authorizeMetered(payer, pricing, req, metered(metered.settings.trancheTokens))
        : await rail.authorize(payer, pricing, req);
  } catch (err) {
    if (recordKey) await abandonIdempotent(deps.db, recordKey);
    throw err instanceof PaymentRefusal ? await refused(err) : err;
  }
  const call = new PaidCall(x, deps, sale, rail, auth, quote, recordKey, started, refused, metered);
  return call.run(input);
}

/**
 * A stream is paid a part at a time as it is delivered when the rail can meter it, the offer will answer this input
 * with a stream it can count, and the entry is priced by its output (a streamed chat on a payment channel).
 */
function meteredPrice(
  deps: CheckoutDeps,
  rail: Rail | undefined,
  sale: Sale,
  input: Record<string, unknown>,
  quote: Quote,
): MeteredPrice | undefined {
  const settings = deps.metering;
  if (!settings || (rail && !rail.authorizeMetered) || sale.price || !sale.offer.metersStream?.(input))
    return undefined;
  const price = deps.catalog.outputPrice(sale.offer.entry, input);
  if (!price) return undefined;
  return Object.assign((tokens: number) => Math.min(quote.costMicroUsd, price(tokens)), { settings });
}

/** What a rail that meters this call's stream asks for first (the input and the first tranche), if it would be metered. */
function firstTranche(
  deps: CheckoutDeps,
  sale: Sale,
  input: Record<string, unknown>,
  quoteFor: (pc: PriceClass) => Quote,
): number | undefined {
  const metered = meteredPrice(deps, undefined, sale, input, quoteFor('wallet'));
  return metered?.(metered.settings.trancheTokens);
}
