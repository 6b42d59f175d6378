/** The rail port: how a payment method identifies a payer, contributes to a 402, authorizes, captures and voids. */
import type { PriceClass, Quote } from '../catalog/types.js';
import type { SkillRail } from '../discovery/skill.js';
import type { CallSignal } from '../http/call-signal.js';
import { ApiError } from '../http/errors.js';

/** What a rail may read of the incoming request. */
export interface PaidRequest {
  method: string;
  /** The path, e.g. `/v1/chat/completions`. */
  path: string;
  /** The public URL of the resource, for challenges that name it. */
  resourceUrl: string;
  header(name: string): string | undefined;
  requestId: string;
  /** RFC 9530 digest of the request body (`sha-256=:<base64>:`), for challenges bound to the body. */
  bodyDigest: string;
}

/** The offer and its price, as a rail sees them (rails know nothing about models). */
export interface Pricing {
  offerId: string;
  description: string;
  quote: Quote;
  /** The JSON schema of the request body, for rails whose challenge describes the input (x402's bazaar). */
  inputSchema?: Record<string, unknown>;
  /** When the call's stream would be metered: what a metering rail asks for first (input and first tranche). */
  firstTrancheMicroUsd?: number;
}

/**
 * A payment refused by its rail (a bad or spent wallet payment): the checkout answers it with a fresh 402 that
 * lists every rail again, carrying this code and message, so the caller can pay anew.
 */
export class PaymentRefusal extends ApiError {}

/** One rail's part of a 402: headers to add (e.g. WWW-Authenticate, PAYMENT-REQUIRED) and its entry in the body. */
export interface RailChallenge {
  headers: Array<[string, string]>;
  body: Record<string, unknown>;
}

/** A caller identified by a rail's credential, before any money moves. */
export interface Payer {
  rail: string;
  accountId: string | null;
  keyId: string | null;
  /** A wallet address or other payer reference, when the rail has one. */
  address: string | null;
  /** Idempotency keys are scoped to this (so two callers cannot collide or read each other's results). */
  scope: string;
  /** Opaque to the checkout; the rail's own data for authorize(). */
  detail?: unknown;
}

/** The call facts written to the usage record when the payment settles. */
export interface UsageFacts {
  requestId: string;
  offerId: string;
  quoteMicroUsd: number;
  httpStatus: number;
  latencyMs: number;
  errorCode: string | null;
}

/** What the caller receives about the payment: response headers and a receipt object for the body. */
export interface RailReceipt {
  headers: Record<string, string>;
  receipt: Record<string, unknown>;
  /**
   * Of a capture whose charge is made durable apart from it: the checkout calls this right before the call that
   * hands the answer's last bytes to the operating system, in the same synchronous run of code, so a process that
   * dies before it has charged nothing and one that dies after has recorded the charge (ledger/charge-journal.ts).
   * Before, not after: the write that sends the answer wakes the caller, and the scheduler often runs the caller
   * at once, leaving this process waiting right after that write; a process killed while it waits there would have
   * sent an answer it had not charged. What is left is the stretch between the two writes: a kill there charges
   * one call whose answer never left.
   * With the PostgreSQL journal it returns a promise (the journal row's group commit) that the write must wait for
   * instead; a kill between that commit and the writes charges the calls of that one commit whose answers had not
   * left yet. Callers await only a returned promise, so the file journal's path stays synchronous.
   */
  commit?: () => void | Promise<void>;
  /** For a metered stream: an SSE event the stream carries just before its end (a channel's `payment-receipt`). */
  event?: Buffer;
  /**
   * What the rail took, when it took less than it was asked to (a channel call whose hold the sweeper had already
   * given back): the answer's `costMicroUsd` states it.
   */
  chargedMicroUsd?: number;
}

/** Money reserved (or a payment verified) for one call, waiting for the outcome. */
export interface Authorization {
  payer: Payer;
  amountMicroUsd: number;
  /** Charges exactly the authorized amount and records the usage row. */
  capture(usage: UsageFacts): Promise<RailReceipt>;
  /** Cancels: nothing is charged; the usage row records the failure. */
  void(usage: UsageFacts): Promise<RailReceipt>;
  /** Headers for a stream's start, before the outcome is known: what success will charge. */
  streamHeaders(): Record<string, string>;
}

/**
 * A payment taken a part at a time while a stream is delivered (a payment channel's metered stream): the call holds
 * what the payer authorized for it so far, raises the hold as the output grows, and charges what was delivered.
 */
export interface MeteredAuthorization extends Authorization {
  /** What the call holds now (micro-USD): the output delivered never costs more. */
  readonly held: number;
  /**
   * Raises the hold towards `want` (at least `need`) from what the payer has already authorized. When that falls
   * short: `ask` is the SSE event asking the payer for more, or null when no more can be asked (the channel is
   * closing, or its deposit cannot cover `need`).
   */
  raise(need: number, want: number): Promise<{ raised: true } | { raised: false; ask: Buffer | null }>;
  /** Resolves once the payer may have authorized more (a new voucher, here or on another instance), within `ms`. */
  nudge(ms: number, signal: CallSignal): Promise<void>;
  /** Charges `amount` (at most `held`), gives the rest back and records the usage. */
  captureDelivered(usage: UsageFacts, amount: number): Promise<RailReceipt>;
}

/**
 * A rail whose payment can outlive the process that took it: a database hold, settled later by whichever instance
 * sees the job end (async jobs). Rails without it serve `Prefer: respond-async` calls synchronously.
 */
export interface JobHolds {
  /** Holds the quote for a job; throws like authorize() when refused. `headers` state the payer's position now. */
  hold(
    payer: Payer,
    pricing: Pricing,
    req: PaidRequest,
    ttlSeconds: number,
  ): Promise<{ holdId: string; headers: Record<string, string> }>;
  /** Captures (the job succeeded) or releases the hold, writing the usage row; a second settle changes nothing. */
  settle(
    holdId: string,
    outcome: 'capture' | 'release',
    payer: Pick<Payer, 'accountId' | 'keyId'>,
    usage: UsageFacts,
  ): Promise<RailReceipt & { charged: boolean }>;
}

export interface Rail {
  readonly id: string;
  /** Present on rails that can carry an async job's payment (see JobHolds). */
  readonly jobs?: JobHolds;
  readonly title: string;
  /** Which price list this rail pays. */
  readonly priceClass: PriceClass;
  /** False for a route of the rail's family that it cannot pay on this server (absent: it pays every route). */
  serves?(path: string): boolean;
  /** True when the request carries this rail's credential (headers only, no I/O). */
  carries(req: PaidRequest): boolean;
  /**
   * The credential is one payment, good for one call (x402): a call paid with it keeps its answer for replay as if
   * the caller had sent an Idempotency-Key, so the same payment sent again with the same body gets that answer back
   * (a caller whose connection was cut, or whose instance died, after the payment settled).
   */
  readonly replaysByPayment?: boolean;
  /** Identifies the payer from the credential; throws ApiError (401/402) when it is bad. */
  identify(req: PaidRequest): Promise<Payer>;
  /** Reserves or verifies the payment for the quote; throws ApiError (402 with the reason) when refused. */
  authorize(payer: Payer, pricing: Pricing, req: PaidRequest): Promise<Authorization>;
  /**
   * Present on rails that can meter a stream: authorizes `first` (the price of the first part of the output) with
   * `pricing.quote` as the ceiling; throws like authorize() when refused.
   */
  authorizeMetered?(
    payer: Payer,
    pricing: Pricing,
    req: PaidRequest,
    first: number,
  ): Promise<MeteredAuthorization>;
  /**
   * Headers for an answer that authorized and charged nothing (bad input, an unknown model, a price above
   * X-Max-Price, …), for a rail that states the payer's position on every response; null when the request
   * names no payer of this rail, or when `stated` (the headers the answer already has, such as the rail's own
   * refusal) says it all. Optional: wallet rails have nothing to state before a payment.
   */
  unpaidHeaders?(req: PaidRequest, stated: Record<string, string>): Promise<Record<string, string> | null>;
  /**
   * This rail's part of a 402 for the offer, or null when it cannot pay it; `refusal` is set when the 402 answers
   * a payment this rail refused.
   */
  challenge(
    pricing: Pricing,
    req: PaidRequest,
    refusal?: PaymentRefusal,
  ): RailChallenge | null | Promise<RailChallenge | null>;
  /** How to pay on this rail, for /skill.md. */
  describe(baseUrl: string): SkillRail;
}
