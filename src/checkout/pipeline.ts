/**
 * The one call pipeline: validate → quote → X-Max-Price → rail → idempotency → authorize → run →
 * capture | void → respond. Every route of a catalog entry sells through `sell()`; no handler touches money itself.
 * A free entry (the free price rule) is validated and run the same way, with no payment step at all.
 */
import { createHash } from 'node:crypto';
import { type Catalog, type CatalogEntry, isFree, type PriceClass, type Quote } from '../catalog/types.js';
import { CallAbort } from '../http/call-signal.js';
import { ApiError, invalidInput } from '../http/errors.js';
import { type Exchange, JSON_TYPE, sendJson } from '../http/exchange.js';
import type { Logger } from '../http/logger.js';
import type { Metrics } from '../http/metrics.js';
import type { SseSink } from '../http/sse.js';
import type { RailRegistry } from '../rails/registry.js';
import {
  type Authorization,
  type MeteredAuthorization,
  type PaidRequest,
  PaymentRefusal,
  type Rail,
  type RailReceipt,
  type UsageFacts,
} from '../rails/types.js';
import type { Db } from '../store/db.js';
import { paidAnswer } from './answer.js';
import { paymentRequired, pricingOf, walletRailOff } from './challenge.js';
import {
  abandonIdempotent,
  beginIdempotent,
  completeIdempotent,
  readIdempotencyKey,
  replayHeaders,
} from './idempotency.js';
import { type JobRunner, wantsAsync } from './jobs.js';
import { assertWithinMaxPrice, parseMaxPrice } from './max-price.js';
import type { Offer, OfferResult, OutputMeter, StreamEvent } from './offer.js';
import { type MeteredPrice, type MeteringSettings, StreamTab } from './stream-tab.js';
import { runFailure } from './upstream-errors.js';

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

const DONE_FRAME = Buffer.from('data: [DONE]\n\n');

/** What the rails read of the exchange; the resource URL only when a rail asks for it (a 402 names it). */
class ExchangeRequest implements PaidRequest {
  private digest: string | undefined;
  constructor(
    private readonly x: Exchange,
    private readonly publicBaseUrl: string,
    private readonly rawBody: Buffer = Buffer.alloc(0),
  ) {}
  /** RFC 9530's `sha-256=:<base64>:` of the request body, computed once when a rail binds a challenge to it. */
  get bodyDigest() {
    this.digest ??= `sha-256=:${createHash('sha256').update(this.rawBody).digest('base64')}:`;
    return this.digest;
  }
  get method() {
    return this.x.method;
  }
  get path() {
    return this.x.path;
  }
  get requestId() {
    return this.x.requestId;
  }
  get resourceUrl() {
    return `${this.publicBaseUrl}${this.x.path}`;
  }
  header(name: string): string | undefined {
    return this.x.header(name);
  }
}

/** The quote per price class, each computed once (a 402 lists every rail's); a model's came with its validation. */
function memoQuote(catalog: Catalog, entry: CatalogEntry, input: Record<string, unknown>, known?: Quote) {
  if (known) return (_pc: PriceClass): Quote => known;
  const cache: Partial<Record<PriceClass, Quote>> = {};
  return (pc: PriceClass): Quote => {
    cache[pc] ??= catalog.quote(entry, input, pc);
    return cache[pc];
  };
}

const withHeaders = (err: ApiError, headers: Record<string, string>) =>
  new ApiError(err.code, err.message, err.details, { ...err.headers, ...headers });

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

/**
 * A free entry's call: validated and run like a paid one, answered with the offer's own result as it is (no id, cost
 * or receipt stamped on it); no rail is asked, so no payment header is read or sent, and nothing is charged.
 */
async function give(x: Exchange, deps: CheckoutDeps, sale: Sale): Promise<Response> {
  const { entry } = sale.offer;
  const offer = entry.id;
  const checked = deps.catalog.validate(entry, sale.input);
  if (!checked.ok) throw invalidInput(checked.errors);
  const input = checked.value;
  sale.offer.preflight?.(input);
  const abort = new CallAbort();
  x.onHangUp(() => abort.abort());
  let result: OfferResult;
  try {
    result = await sale.offer.run(input, {
      signal: abort,
      requestId: x.requestId,
      quote: deps.catalog.quote(entry, input, 'wallet'),
    });
  } catch (err) {
    const apiError = runFailure(err);
    deps.metrics.freeCalls.inc({ offer, outcome: apiError.status < 500 ? 'refused' : 'failed' });
    if (apiError.code === 'internal_error')
      deps.log.error({ reqId: x.requestId, err }, 'free call failed inside kasir');
    throw apiError;
  }
  if (result.kind !== 'json') throw new Error(`free entry ${offer} answered with a stream`);
  deps.metrics.freeCalls.inc({ offer, outcome: 'served' });
  // The content type a free answer has always had (a route's own JSON answer, as Hono renders one).
  return x.send(200, JSON.stringify(result.body), { 'content-type': 'application/json', ...result.headers });
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
  if (idempotencyKey) {
    const start = await beginIdempotent(deps.db, {
      route: x.path,
      scope: `${rail.id}:${payer.scope}`,
      key: idempotencyKey,
      body: sale.rawBody,
    });
    if (start.kind === 'replay') {
      const now = await rail.unpaidHeaders?.(req, {}).catch(() => null);
      return x.send(
        start.response.status,
        start.response.body,
        replayHeaders(start.response.headers, now ?? null),
      );
    }
    recordKey = start.recordKey;
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

/** One authorized call: runs the offer, settles exactly once, and answers. */
class PaidCall {
  private readonly abort = new CallAbort();
  constructor(
    private readonly x: Exchange,
    private readonly deps: CheckoutDeps,
    private readonly sale: Sale,
    private readonly rail: Rail,
    private readonly auth: Authorization,
    private readonly quote: Quote,
    private readonly recordKey: string | null,
    private readonly started: number,
    private readonly refused: (refusal: PaymentRefusal) => Promise<ApiError>,
    /** Set when a stream of this call is paid as it is delivered (the authorization is then a metered one). */
    private readonly metered?: MeteredPrice,
  ) {}

  private usage(httpStatus: number, errorCode: string | null): UsageFacts {
    return {
      requestId: this.x.requestId,
      offerId: this.sale.offer.entry.id,
      quoteMicroUsd: this.quote.costMicroUsd,
      httpStatus,
      latencyMs: Math.round(performance.now() - this.started),
      errorCode,
    };
  }

  private count(outcome: 'charged' | 'voided') {
    this.deps.metrics.paidCalls.inc({ offer: this.sale.offer.entry.id, rail: this.rail.id, outcome });
  }

  /** Voids the authorization and returns the error to answer with, carrying the rail's headers. */
  private async fail(err: unknown): Promise<ApiError> {
    // Aborted here means the caller hung up before its answer: nothing was delivered, so nothing is charged,
    // and whatever the upstream call threw on the way out is not a failure of kasir's.
    const apiError = this.abort.aborted
      ? new ApiError(
          'client_disconnected',
          'the caller closed the connection before the answer; nothing was charged',
        )
      : runFailure(err);
    if (apiError.code === 'internal_error') {
      this.deps.log.error({ reqId: this.x.requestId, err }, 'paid call failed inside kasir');
    }
    const receipt = await this.auth.void(this.usage(apiError.status, apiError.code));
    this.count('voided');
    if (this.recordKey) await abandonIdempotent(this.deps.db, this.recordKey);
    return withHeaders(apiError, receipt.headers);
  }

  async run(input: Record<string, unknown>): Promise<Response> {
    // The caller hanging up stops the upstream call.
    this.x.onHangUp(() => this.abort.abort());
    let result: Awaited<ReturnType<Offer['run']>>;
    try {
      result = await this.sale.offer.run(input, {
        signal: this.abort,
        requestId: this.x.requestId,
        quote: this.quote,
      });
    } catch (err) {
      throw await this.fail(err);
    }
    if (result.kind === 'stream') return this.stream(result);

    const receipt = await this.settle(this.usage(200, null));
    this.count('charged');
    const body = JSON.stringify(this.stamped(result.body, receipt));
    await this.storeReplay(body, JSON_TYPE, receipt);
    // Recorded in the same synchronous run as the write that hands the answer to the operating system, just before
    // it, or with the PostgreSQL journal once its row is committed (see RailReceipt.commit).
    const durable = receipt.commit?.();
    if (durable) await durable;
    return sendJson(
      this.x,
      200,
      body,
      result.headers ? { ...result.headers, ...receipt.headers } : receipt.headers,
    );
  }

  /**
   * Captures the payment. A wallet payment that cannot be settled (the payer spent the funds meanwhile, say) is
   * refused like a bad payment: the result is withheld, nothing is charged, a fresh 402 answers.
   */
  private async settle(usage: UsageFacts, delivered?: number): Promise<RailReceipt> {
    try {
      return delivered === undefined
        ? await this.auth.capture(usage)
        : await (this.auth as MeteredAuthorization).captureDelivered(usage, delivered);
    } catch (err) {
      if (!(err instanceof PaymentRefusal)) throw err;
      this.count('voided');
      if (this.recordKey) await abandonIdempotent(this.deps.db, this.recordKey);
      throw await this.refused(err);
    }
  }

  /** The offer's result as the answer states it (see paidAnswer), at what the rail took. */
  private stamped(result: Record<string, unknown>, receipt: RailReceipt): Record<string, unknown> {
    const cost = receipt.chargedMicroUsd ?? this.quote.costMicroUsd;
    return paidAnswer(this.sale.offer.entry, cost, result, receipt.receipt, this.sale.nestOutput === true);
  }

  /**
   * Streams: nothing is sent until the first event, so a failure before it is a plain JSON error. After that,
   * frames pass through as they arrive; the payment settles after the upstream's last event, and the closing
   * frames carry the cost. An upstream that dies mid-stream gets an explicit SSE error event and no charge.
   * A caller that disconnects mid-stream stops the upstream and is charged the quote: the answer was being
   * delivered, and stopping was the caller's choice. A stream cut short by kasir itself (an upstream failure, or
   * the process dying) is not charged: its end never reached the caller. A metered stream (see StreamTab) is charged
   * the output delivered instead of the quote, and may end early, cleanly, when its payer authorizes no more.
   */
  private async stream(result: Extract<OfferResult, { kind: 'stream' }>): Promise<Response> {
    const iterator = result.events[Symbol.asyncIterator]();
    let next: IteratorResult<StreamEvent>;
    try {
      next = await iterator.next();
      if (next.done)
        throw new ApiError('upstream_error', 'the upstream stream ended before sending anything');
    } catch (err) {
      throw await this.fail(err);
    }
    const sink = this.x.openSse(this.auth.streamHeaders());
    sink.onDisconnect(() => this.abort.abort());
    const tab =
      this.metered && result.meter
        ? new StreamTab(this.auth as MeteredAuthorization, result.meter, this.metered, this.abort)
        : undefined;
    // The handler returns at once; the frames flow from here as the upstream sends them.
    void this.pump(iterator, next.value, sink, result, tab).catch((err) => {
      this.deps.log.error({ reqId: this.x.requestId, err }, 'stream settlement failed');
      sink.end();
    });
    return sink.response;
  }

  /**
   * Forwards frames until the upstream's end, a failure, or the caller leaving, then settles exactly once.
   * Only failures before the settlement void the payment: once captured, nothing can turn into a refund
   * message (a failure to store the replay record is logged, not reported as an unpaid error).
   */
  private async pump(
    iterator: AsyncIterator<StreamEvent>,
    first: StreamEvent,
    sink: SseSink,
    result: Extract<OfferResult, { kind: 'stream' }>,
    tab?: StreamTab,
  ): Promise<void> {
    const sent: Buffer[] | null = this.recordKey ? [] : null;
    const say = (bytes: Buffer) => {
      sent?.push(bytes);
      return sink.write(bytes);
    };
    let event = first;
    let unpaid = false;
    try {
      while (event.type === 'frame') {
        if (tab) {
          // A metered stream forwards frames once their output is paid for, else ends here (see stopUnpaid).
          if (!(await tab.pass(event.bytes, say))) {
            unpaid = !sink.closed;
            break;
          }
        } else {
          sent?.push(event.bytes);
          if (!(await sink.write(event.bytes))) break;
        }
        const next = await iterator.next();
        if (next.done)
          throw new ApiError('upstream_error', 'the upstream stream ended without its final event');
        event = next.value;
      }
    } catch (err) {
      if (!sink.closed) {
        const apiError = await this.fail(err);
        sink.end(Buffer.from(`event: error\ndata: ${JSON.stringify(apiError.toBody())}\n\n`));
        return;
      }
    }

    if (unpaid && tab && result.meter) {
      await this.stopUnpaid(iterator, sink, result, tab, result.meter, sent);
      return;
    }

    if (event.type === 'end') {
      let receipt: RailReceipt;
      const charge = tab ? await tab.final(event) : undefined;
      try {
        receipt = await this.settle(this.usage(200, null), charge);
      } catch (err) {
        // The frames were delivered, but the wallet payment did not settle: the stream ends with the refusal.
        // Anything else (the database down, say) is the pump's failure to log.
        if (!(err instanceof ApiError)) throw err;
        sink.end(Buffer.from(`event: error\ndata: ${JSON.stringify(err.toBody())}\n\n`));
        return;
      }
      this.count('charged');
      await this.finish(sink, result.closingFrames(event, this.stamp(receipt, charge)), receipt, sent);
      return;
    }

    // The caller went away mid-stream: charged (see stream()), a metered stream what it delivered; a retry with the
    // same key replays what was sent.
    await iterator.return?.()?.catch(() => {});
    const receipt = await this.settle(this.usage(499, 'client_disconnected'), tab?.cost);
    await receipt.commit?.();
    this.count('charged');
    await this.storeReplay(sent, 'text/event-stream; charset=utf-8', receipt);
  }

  private stamp(receipt: RailReceipt, charge = this.quote.costMicroUsd) {
    return { costMicroUsd: receipt.chargedMicroUsd ?? charge, receipt: receipt.receipt };
  }

  /** Ends a settled stream: the closing frames, the rail's receipt event if any, then `[DONE]`. */
  private async finish(sink: SseSink, closing: Buffer, receipt: RailReceipt, sent: Buffer[] | null) {
    const tail = Buffer.concat(receipt.event ? [closing, receipt.event, DONE_FRAME] : [closing, DONE_FRAME]);
    sent?.push(tail);
    // Stored before the caller sees the end, so an immediate retry with the same key replays it.
    await this.storeReplay(sent, 'text/event-stream; charset=utf-8', receipt);
    const durable = receipt.commit?.();
    if (durable) await durable;
    sink.end(tail);
  }

  /**
   * Ends a metered stream whose payer authorized no more (the wait ran out, the deposit is spent, the channel is
   * closing): the upstream is stopped, the answer closed as cut at its length, and what was delivered charged.
   */
  private async stopUnpaid(
    iterator: AsyncIterator<StreamEvent>,
    sink: SseSink,
    result: Extract<OfferResult, { kind: 'stream' }>,
    tab: StreamTab,
    meter: OutputMeter,
    sent: Buffer[] | null,
  ): Promise<void> {
    this.abort.abort();
    await iterator.return?.()?.catch(() => {});
    const charge = tab.cost;
    const receipt = await this.settle(this.usage(200, null), charge);
    this.count('charged');
    const cut = meter.cutShort(tab.tokens);
    const closing = Buffer.concat([cut.frames, result.closingFrames(cut.end, this.stamp(receipt, charge))]);
    await this.finish(sink, closing, receipt, sent);
  }

  /** Keeps a charged result for Idempotency-Key replays; a failure here never undoes the charge. */
  private async storeReplay(body: Buffer[] | string | null, contentType: string, receipt: RailReceipt) {
    if (!this.recordKey || body === null) return;
    try {
      await completeIdempotent(this.deps.db, this.recordKey, {
        status: 200,
        headers: { 'content-type': contentType, ...receipt.headers },
        body: typeof body === 'string' ? body : Buffer.concat(body).toString('utf8'),
      });
    } catch (err) {
      this.deps.log.error({ reqId: this.x.requestId, err }, 'could not store the result for replay');
    }
  }
}
