/** One authorized call: runs the offer, settles exactly once (capture or void), and answers, streamed or whole. */
import type { Quote } from '../catalog/types.js';
import { CallAbort } from '../http/call-signal.js';
import { ApiError } from '../http/errors.js';
import { type Exchange, JSON_TYPE, sendJson } from '../http/exchange.js';
import type { SseSink } from '../http/sse.js';
import {
  type Authorization,
  type MeteredAuthorization,
  PaymentRefusal,
  type Rail,
  type RailReceipt,
  type UsageFacts,
} from '../rails/types.js';
import { paidAnswer } from './answer.js';
import { abandonIdempotent, completeIdempotent } from './idempotency.js';
import type { Offer, OfferResult, OutputMeter, StreamEvent } from './offer.js';
import type { CheckoutDeps, Sale } from './sale.js';
import { type MeteredPrice, StreamTab } from './stream-tab.js';
import { runFailure } from './upstream-errors.js';

const DONE_FRAME = Buffer.from('data: [DONE]\n\n');

/** `err` with `headers` added (a rail's receipt or balance on an error answer). */
export const withHeaders = (err: ApiError, headers: Record<string, string>) =>
  new ApiError(err.code, err.message, err.details, { ...err.headers, ...headers });

/** One authorized call: runs the offer, settles exactly once, and answers. */
export class PaidCall {
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
    // The caller hung up while work that does not stop on its signal (a tool in a worker thread) ran on: the answer
    // can reach nobody, so nothing is charged, as when a hang-up stops an upstream call (see fail).
    if (this.abort.aborted) throw await this.fail(this.abort.reason);

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
      // Gone before the first byte: charged nothing, whatever the upstream sends now.
      if (this.abort.aborted) throw this.abort.reason;
    } catch (err) {
      await iterator.return?.()?.catch(() => {});
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
