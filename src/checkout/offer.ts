/** An Offer is one thing kasir sells (a catalog entry) plus how to run it. Offers never touch money. */
import type { CatalogEntry, Quote } from '../catalog/types.js';
import type { CallSignal } from '../http/call-signal.js';

export interface RunContext {
  /** Aborted when the caller goes away or the call is cancelled; pass it to every upstream request. */
  signal: CallSignal;
  requestId: string;
  quote: Quote;
}

/** The final stamp a stream's last chunk carries, once the payment has settled. */
export interface CostStamp {
  costMicroUsd: number;
  receipt: Record<string, unknown>;
}

export type StreamEvent =
  /** Bytes to forward to the caller as they are (complete SSE frames). */
  | { type: 'frame'; bytes: Buffer }
  /** The upstream finished; what it reported (usage, ids) is the offer's own business. */
  | { type: 'end' };

/**
 * How a stream's output is counted as it is delivered, for a payment taken a part at a time (a payment channel's
 * metered stream): the checkout prices the count with the catalog's output price.
 */
export interface OutputMeter {
  /** The output tokens `bytes` (complete frames) carry. */
  tokensIn(bytes: Buffer): number;
  /** The output tokens the upstream reported at its end, when it did. */
  reported(end: StreamEvent & { type: 'end' }): number | undefined;
  /**
   * Closes a stream kasir ends before the upstream did (the payer authorized no more): the frames that finish the
   * answer, and the end event `closingFrames` renders, stating `outputTokens` of output.
   */
  cutShort(outputTokens: number): { frames: Buffer; end: StreamEvent & { type: 'end' } };
}

export type OfferResult =
  /** A JSON body; the checkout adds the id, costMicroUsd and the receipt (and sends `headers`, e.g. X-Cache). */
  | { kind: 'json'; body: Record<string, unknown>; headers?: Record<string, string> }
  /**
   * Server-sent events, forwarded as they arrive and settled after the `end` event; then the offer renders its
   * closing frames (usage, cost, receipt) from that event and the settled stamp. The events are the upstream
   * adapter's own, with no re-wrapping per frame.
   */
  | {
      kind: 'stream';
      events: AsyncIterable<StreamEvent>;
      closingFrames(end: StreamEvent & { type: 'end' }, stamp: CostStamp): Buffer;
      /** Present when the offer said the input's stream can be metered (`Offer.metersStream`). */
      meter?: OutputMeter;
    };

/** Where an async job stands upstream. */
export type JobState =
  | { state: 'queued' | 'running' | 'succeeded' }
  | { state: 'failed'; message: string; callerFault: boolean };

/**
 * An offer that can run as an async job: submitted within the paid request, then polled (by any instance, after
 * a restart too) until it ends; its handle is JSON the job table keeps.
 */
export interface OfferJob {
  submit(input: Record<string, unknown>, ctx: RunContext): Promise<Record<string, unknown>>;
  status(handle: Record<string, unknown>, signal: CallSignal): Promise<JobState>;
  /** The finished job's result: the JSON body the synchronous call's offer would have returned. */
  result(handle: Record<string, unknown>, signal: CallSignal): Promise<Record<string, unknown>>;
  /** Stops the upstream's work (best effort). */
  cancel?(handle: Record<string, unknown>): Promise<void>;
}

export interface Offer {
  entry: CatalogEntry;
  /** Present when the offer can run as an async job (`Prefer: respond-async`). */
  job?: OfferJob;
  /** Throws an ApiError (e.g. 503 not configured) when the offer cannot run at all; called before any payment. */
  preflight?(input: Record<string, unknown>): void;
  /**
   * Reads what the price depends on from the call's own files (an audio's length), writing it into the validated
   * `input` before the quote; true when it did (the quote is then made again). Throws an ApiError (400 naming the
   * field) when a file cannot be measured. Called after `preflight`, before any payment.
   */
  measure?(input: Record<string, unknown>): Promise<boolean>;
  /** True when run() answers this input with a stream carrying an OutputMeter (a streamed chat). */
  metersStream?(input: Record<string, unknown>): boolean;
  /** Runs the paid work; throws UpstreamError or ApiError on failure. */
  run(input: Record<string, unknown>, ctx: RunContext): Promise<OfferResult>;
}
