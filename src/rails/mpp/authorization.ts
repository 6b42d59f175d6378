/**
 * One MPP payment waiting for its call's outcome. kasir never keeps a payer's money: a pull payment (a signed Tempo
 * transaction) is broadcast only once the call has succeeded — or once its stream has started, since a stream's
 * frames reach the caller before it ends — so nothing moves for a call that fails before; a payment that had
 * already moved (a push payment, or a pull payment whose stream then failed) is sent back on-chain from the refund
 * wallet; a card payment is only authorized before the call, captured after it succeeded and canceled (released)
 * when it failed.
 */
import { Errors, Receipt } from 'mppx';
import type Stripe from 'stripe';
import type { Logger } from '../../http/logger.js';
import { recordWalletUsage, walletUsageCharged } from '../../ledger/wallet-payments.js';
import type { Db } from '../../store/db.js';
import type { Authorization, Payer, RailReceipt, UsageFacts } from '../types.js';
import { PaymentRefusal } from '../types.js';
import { usageRow } from '../usage.js';
import type { TempoRefunder } from './refunds.js';

/** What an authorization needs of the rail. */
export interface PaymentContext {
  db: Db;
  log: Logger;
  /** `eip155:<chain>` of the Tempo chain. */
  tempoNetwork: string;
  refunder: TempoRefunder;
  stripe: Stripe | undefined;
}

/** How the payment moves: broadcast by kasir after success, already on-chain, or a card charge. */
export type Settlement =
  | {
      kind: 'pull';
      broadcast: () => Promise<Receipt.Receipt>;
      release: () => Promise<void>;
      /** Marks the payment spent for good: its answer is stored for replay, or its money went back. */
      handOver: () => Promise<void>;
    }
  /**
   * A pull payment broadcast by a call that never stored its answer (its process died): its answer is made again,
   * nothing broadcast; `unclaim` lets another retry try if this one fails.
   */
  | { kind: 'paid'; receipt: Receipt.Receipt; unclaim: () => Promise<void>; handOver: () => Promise<void> }
  | { kind: 'push'; receipt: Receipt.Receipt }
  | { kind: 'card'; receipt: Receipt.Receipt };

const receiptHeaders = (receipt: Receipt.Receipt) => ({
  'payment-receipt': Receipt.serialize(receipt),
  'cache-control': 'private',
});

/** What the caller is told of a refund: the refund's reference, or what is still owed to it. */
function refundHeaders(given: Record<string, unknown>): Record<string, string> {
  const refunded = given.refunded as { transaction?: string } | string | undefined;
  const owed = given.refund_owed as { amount_micro_usd: number } | undefined;
  if (refunded)
    return { 'x-payment-refund': typeof refunded === 'string' ? refunded : String(refunded.transaction) };
  if (owed) return { 'x-payment-refund-owed-micro-usd': String(owed.amount_micro_usd) };
  return {};
}

export class MppAuthorization implements Authorization {
  /** The pull payment's broadcast, once started (at the stream's start, or at capture). */
  private broadcasting: Promise<Receipt.Receipt | PaymentRefusal> | undefined;

  constructor(
    readonly payer: Payer,
    readonly amountMicroUsd: number,
    private readonly ctx: PaymentContext,
    private readonly challengeId: string,
    private readonly settlement: Settlement,
    private readonly route: string,
  ) {}

  private networkOf(receipt: Receipt.Receipt) {
    return receipt.method === 'tempo' ? this.ctx.tempoNetwork : receipt.method;
  }

  private async record(usage: UsageFacts, charged: number, receipt: Receipt.Receipt | null) {
    const row = usageRow(usage, { rail: 'mpp', payer: this.payer, chargedMicroUsd: charged });
    await recordWalletUsage(this.ctx.db, row, {
      route: this.route,
      network: receipt ? this.networkOf(receipt) : this.ctx.tempoNetwork,
      txId: receipt?.reference ?? null,
    });
  }

  /** Broadcasts a pull payment once; a refusal (expired, unfunded, …) is returned, not thrown. */
  private broadcast(): Promise<Receipt.Receipt | PaymentRefusal> {
    const { settlement } = this;
    if (settlement.kind !== 'pull') return Promise.resolve(settlement.receipt);
    this.broadcasting ??= settlement.broadcast().catch((err: unknown) => {
      const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
      if (!(err instanceof Errors.PaymentError) || err.status >= 500) {
        this.ctx.log.error(
          { err, challenge: this.challengeId },
          'mpp: a pull payment could not be broadcast',
        );
      }
      return new PaymentRefusal(
        err instanceof Errors.PaymentExpiredError ? 'payment_expired' : 'payment_failed',
        `the payment verified but could not be broadcast after the call (${reason}), so the result is withheld and nothing was charged`,
        { reason },
      );
    });
    return this.broadcasting;
  }

  /** Captures an authorized card payment; a refusal (the authorization lapsed, say) is thrown. */
  private async captureCard(receipt: Receipt.Receipt): Promise<void> {
    try {
      await this.ctx.stripe?.paymentIntents.capture(receipt.reference, undefined, {
        idempotencyKey: `kasir_capture_${this.challengeId}`,
      });
    } catch (err) {
      this.ctx.log.error({ err, reference: receipt.reference }, 'mpp: could not capture a card payment');
      throw new PaymentRefusal(
        'payment_failed',
        'the card was authorized but could not be charged after the call, so the result is withheld and nothing was charged',
        { reason: (err as Error).message },
      );
    }
  }

  async capture(usage: UsageFacts): Promise<RailReceipt> {
    if (this.settlement.kind === 'card') {
      try {
        await this.captureCard(this.settlement.receipt);
      } catch (refusal) {
        await this.record({ ...usage, httpStatus: 402, errorCode: 'payment_failed' }, 0, null);
        throw refusal;
      }
    }
    const receipt = await this.broadcast();
    if (receipt instanceof PaymentRefusal) {
      await this.record({ ...usage, httpStatus: 402, errorCode: receipt.code }, 0, null);
      throw receipt;
    }
    const { settlement } = this;
    // Made again: charged when it was broadcast, if its usage record got written then.
    if (settlement.kind !== 'paid' || !(await walletUsageCharged(this.ctx.db, receipt.reference)))
      await this.record(usage, this.amountMicroUsd, receipt);
    return {
      ...(settlement.kind === 'pull' || settlement.kind === 'paid' ? { commit: settlement.handOver } : {}),
      headers: receiptHeaders(receipt),
      receipt: {
        rail: 'mpp',
        method: receipt.method,
        reference: receipt.reference,
        payer: this.payer.address,
        charged_micro_usd: this.amountMicroUsd,
      },
    };
  }

  /** Nothing is charged: a pull payment is not broadcast; one that moved already goes back to the payer. */
  async void(usage: UsageFacts): Promise<RailReceipt> {
    const given: Record<string, unknown> = { rail: 'mpp', charged_micro_usd: 0 };
    const { settlement } = this;
    let moved: Receipt.Receipt | null = null;
    if (settlement.kind === 'pull') {
      const started = this.broadcasting ? await this.broadcasting : null;
      if (started && !(started instanceof PaymentRefusal)) {
        moved = started;
        // Refunded below: no answer is owed for it any more.
        await settlement.handOver();
      }
      // Never broadcast: the same credential may pay a retry of this call.
      else await settlement.release();
    } else if (settlement.kind === 'paid') {
      // Still paid, its answer still owed: a later retry may make it.
      await settlement.unclaim();
      await this.record(usage, 0, null);
      return { headers: {}, receipt: given };
    } else {
      moved = settlement.receipt;
    }
    if (moved?.method === 'stripe') Object.assign(given, await this.releaseCard(moved));
    else if (moved) Object.assign(given, await this.refundTempo(moved));
    else given.moved = 'nothing: the payment was not broadcast';
    await this.record(usage, 0, moved);
    return { headers: refundHeaders(given), receipt: given };
  }

  /** Releases an authorized card payment: nothing is charged. */
  private async releaseCard(receipt: Receipt.Receipt): Promise<Record<string, unknown>> {
    try {
      await this.ctx.stripe?.paymentIntents.cancel(receipt.reference, undefined, {
        idempotencyKey: `kasir_cancel_${this.challengeId}`,
      });
      return { released: receipt.reference };
    } catch (err) {
      // An uncaptured authorization lapses by itself after some days: still nothing is charged.
      this.ctx.log.error({ err, reference: receipt.reference }, 'mpp: could not cancel a card authorization');
      return { release_failed: receipt.reference };
    }
  }

  private async refundTempo(receipt: Receipt.Receipt): Promise<Record<string, unknown>> {
    const payer = this.payer.address?.split(':').at(-1) as `0x${string}`;
    const outcome = await this.ctx.refunder.refund({
      challengeId: this.challengeId,
      payer,
      amount: BigInt(this.amountMicroUsd),
      paymentTx: receipt.reference as `0x${string}`,
    });
    if (outcome.state === 'sent') {
      return { refunded: { transaction: outcome.tx, amount_micro_usd: this.amountMicroUsd, to: payer } };
    }
    const reason = outcome.state === 'owed' ? outcome.reason : `already ${outcome.record.state}`;
    this.ctx.log.error(
      {
        challenge: this.challengeId,
        payer,
        amountMicroUsd: this.amountMicroUsd,
        payment: receipt.reference,
        reason,
      },
      'mpp: a refund is owed to a payer',
    );
    return {
      refund_owed: { amount_micro_usd: this.amountMicroUsd, to: payer, payment: receipt.reference, reason },
    };
  }

  streamHeaders(): Record<string, string> {
    const { settlement } = this;
    // The stream is about to reach the caller: a pull payment is broadcast now (its receipt ends the stream).
    if (settlement.kind === 'pull') {
      void this.broadcast();
      return {};
    }
    return receiptHeaders(settlement.receipt);
  }
}
