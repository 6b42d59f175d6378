/** A free entry's call (a lookup): validated and run like a paid one, with no payment step at all. */
import { CallAbort } from '../http/call-signal.js';
import { type ApiError, invalidInput } from '../http/errors.js';
import type { Exchange } from '../http/exchange.js';
import { freeUsageRow } from '../rails/usage.js';
import type { OfferResult } from './offer.js';
import type { CheckoutDeps, Sale } from './sale.js';
import { runFailure } from './upstream-errors.js';

/**
 * A free entry's call: validated and run like a paid one, answered with the offer's own result as it is (no id, cost
 * or receipt stamped on it); no rail is asked, so no payment header is read or sent, and nothing is charged.
 * A call that ran writes its usage row like a paid call's (rail 'free', no payer, nothing charged: status 'free'
 * when served, 'voided' when the run refused or failed); one refused before it ran (its input invalid) writes none,
 * as a paid call's does not.
 */
export async function give(x: Exchange, deps: CheckoutDeps, sale: Sale): Promise<Response> {
  const started = performance.now();
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
    record(x, deps, offer, started, apiError);
    throw apiError;
  }
  if (result.kind !== 'json') throw new Error(`free entry ${offer} answered with a stream`);
  deps.metrics.freeCalls.inc({ offer, outcome: 'served' });
  record(x, deps, offer, started, null);
  // The content type a free answer has always had (a route's own JSON answer, as Hono renders one).
  return x.send(200, JSON.stringify(result.body), { 'content-type': 'application/json', ...result.headers });
}

/** Queues the call's usage row; a failure to queue it is logged, never the call's (its write is retried apart). */
function record(
  x: Exchange,
  deps: CheckoutDeps,
  offer: string,
  started: number,
  failure: ApiError | null,
): void {
  if (!deps.recordUsage) return;
  const facts = {
    requestId: x.requestId,
    offerId: offer,
    quoteMicroUsd: 0,
    httpStatus: failure?.status ?? 200,
    latencyMs: Math.round(performance.now() - started),
    errorCode: failure?.code ?? null,
  };
  try {
    deps.recordUsage(freeUsageRow(facts, failure === null));
  } catch (err) {
    deps.log.error({ reqId: x.requestId, err, offer }, 'could not record the usage of a free call');
  }
}
