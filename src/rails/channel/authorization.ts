/**
 * One call paid from a payment channel: what it holds of the channel's voucher, kept alive while the call runs,
 * raised as a metered stream's output grows (or a `payment-need-voucher` event asking for more), and settled with
 * the call's usage record: charged on success, given back on failure.
 */
import type { CallSignal } from '../../http/call-signal.js';
import { nowIso } from '../../ledger/ids.js';
import type { Db } from '../../store/db.js';
import type { MeteredAuthorization, Payer, RailReceipt, UsageFacts } from '../types.js';
import { usageFacts } from '../usage.js';
import {
  type ChannelHold,
  type ChannelUsage,
  keepChannelHold,
  raiseChannelHold,
  settleChannelCall,
} from './holds.js';
import { encodeReceipt } from './session-wire.js';
import type { VoucherBell } from './voucher-bell.js';

/** How often a metered stream waiting for a voucher reads the channel again (one sent to another instance). */
export const VOUCHER_POLL_MS = 250;

/**
 * How long a call's hold is renewed at most: longer than any call runs (the longest upstream wait, a media job's
 * deadline, is an hour by default), so a call that somehow never settled cannot keep its channel open for ever.
 */
const MAX_RENEWAL_MS = 6 * 3600 * 1000;

/** What a channel call's authorization needs of the rail. */
export interface HoldContext {
  db: Db;
  /** Wakes this process's waiting metered streams when a voucher for their channel is accepted. */
  bell: VoucherBell;
  /** How long a call's hold lasts untouched (HOLD_TTL_SECONDS): it is renewed a third of that apart. */
  holdTtlSeconds: number;
  /** The channel's chain, as usage records name it (`eip155:<chain id>`). */
  network: string;
}

export class ChannelAuthorization implements MeteredAuthorization {
  /** Renews the hold while the call runs, so only a dead process's hold lapses (stopped when the call ends). */
  private readonly keepAlive: NodeJS.Timeout;

  constructor(
    private readonly ctx: HoldContext,
    readonly payer: Payer,
    /** What the call holds (for a metered stream, raised as its output grows). */
    public held: number,
    private readonly hold: ChannelHold,
    private readonly route: string,
    private accepted: number,
    private spent: number,
    /** The session challenge the caller answered (its receipts name it), when it paid by mppx's session. */
    private readonly challengeId: string | null,
  ) {
    const until = Date.now() + MAX_RENEWAL_MS;
    this.keepAlive = setInterval(
      () => {
        if (Date.now() > until) return clearInterval(this.keepAlive);
        keepChannelHold(ctx.db, hold).then(
          (kept) => kept || clearInterval(this.keepAlive),
          () => {}, // the next renewal tries again; the hold lasts a whole TTL from the last one that worked
        );
      },
      (ctx.holdTtlSeconds * 1000) / 3,
    ).unref();
  }

  get amountMicroUsd() {
    return this.held;
  }

  private get channelId() {
    return this.hold.channelId;
  }

  /**
   * The channel's voucher and spend as last read, for the receipt: the spend of ended calls only (what running
   * calls hold may still be given back, and a receipt's spend must never go down: mppx's client checks that).
   */
  private seen(row: { accepted: number; spent: number; in_flight?: number }) {
    this.accepted = row.accepted;
    this.spent = row.spent - (row.in_flight ?? 0);
  }

  /** The call's usage record, written with its settlement (settleChannelCall), which sets its charge. */
  private usage(usage: UsageFacts): ChannelUsage {
    return {
      ...usageFacts(usage, { rail: 'channel', payer: this.payer }),
      route: this.route,
      network: this.ctx.network,
      tx_id: null,
    };
  }

  private receipt() {
    return {
      status: 'success',
      method: 'tempo',
      intent: 'session',
      timestamp: nowIso(),
      reference: this.channelId,
      ...(this.challengeId ? { challengeId: this.challengeId } : {}),
      channelId: this.channelId,
      acceptedCumulative: String(this.accepted),
      spent: String(this.spent),
    };
  }

  streamHeaders() {
    return { 'payment-receipt': encodeReceipt(this.receipt()) };
  }

  capture(usage: UsageFacts): Promise<RailReceipt> {
    return this.captureDelivered(usage, this.held);
  }

  async captureDelivered(usage: UsageFacts, amount: number): Promise<RailReceipt> {
    clearInterval(this.keepAlive);
    const settled = await settleChannelCall(
      this.ctx.db,
      this.hold,
      Math.min(amount, this.held),
      true,
      this.usage(usage),
    );
    this.seen(settled);
    // Less than asked only when the sweeper had already given the hold back (see settleChannelCall).
    const { charged } = settled;
    const receipt = this.receipt();
    return {
      headers: { 'payment-receipt': encodeReceipt(receipt), 'cache-control': 'private' },
      receipt: {
        rail: 'channel',
        channel_id: this.channelId,
        accepted_cumulative: this.accepted,
        spent: this.spent,
        charged_micro_usd: charged,
      },
      chargedMicroUsd: charged,
      event: Buffer.from(`event: payment-receipt\ndata: ${JSON.stringify(receipt)}\n\n`),
    };
  }

  async void(usage: UsageFacts): Promise<RailReceipt> {
    clearInterval(this.keepAlive);
    await settleChannelCall(this.ctx.db, this.hold, 0, false, this.usage(usage));
    return { headers: {}, receipt: { rail: 'channel', channel_id: this.channelId, charged_micro_usd: 0 } };
  }

  async raise(need: number, want: number) {
    const outcome = await raiseChannelHold(this.ctx.db, this.hold, need, want);
    const { row } = outcome;
    this.seen(row);
    if (outcome.raised) {
      this.held = outcome.held;
      return { raised: true as const };
    }
    // What the channel needs signed for this call to hold `want`: everything spent (this call's hold included)
    // plus the rest; capped by the deposit, and no ask at all when even `need` is past it.
    const required = Math.min(row.spent + (want - this.held), row.deposit);
    if (outcome.closing || outcome.lapsed || required < row.spent + (need - this.held))
      return { raised: false as const, ask: null };
    const ask = {
      channelId: this.channelId,
      requiredCumulative: String(required),
      acceptedCumulative: String(row.accepted),
      deposit: String(row.deposit),
    };
    return {
      raised: false as const,
      ask: Buffer.from(`event: payment-need-voucher\ndata: ${JSON.stringify(ask)}\n\n`),
    };
  }

  nudge(ms: number, signal: CallSignal) {
    return this.ctx.bell.wait(this.channelId, Math.min(ms, VOUCHER_POLL_MS), signal);
  }
}
