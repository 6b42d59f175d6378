/**
 * A metered stream's running tab: the output delivered so far, priced as a quote is (never above the quote), and
 * the payment raised ahead of it a tranche at a time. A frame whose output the payment does not cover waits: the
 * tab asks the payer for more (the rail's event, e.g. `payment-need-voucher`) and stops reading the upstream until
 * the payer authorizes more or the wait runs out.
 */
import type { CallSignal } from '../providers/call-signal.js';
import type { MeteredAuthorization } from '../rails/types.js';
import type { OutputMeter, StreamEvent } from './offer.js';

/** How a metered stream is paid for (the channel rail's settings). */
export interface MeteringSettings {
  /** Output tokens paid ahead of what was delivered. */
  trancheTokens: number;
  /** How long a stream waits for the payer to authorize more before it ends. */
  voucherWaitMs: number;
}

export class StreamTab {
  private delivered = 0;

  constructor(
    private readonly auth: MeteredAuthorization,
    private readonly meter: OutputMeter,
    /** The price of the call had it produced `outputTokens`, capped by the quote. */
    private readonly price: (outputTokens: number) => number,
    private readonly settings: MeteringSettings,
    private readonly signal: CallSignal,
  ) {}

  /** Output tokens delivered so far. */
  get tokens(): number {
    return this.delivered;
  }

  /** What the output delivered so far costs. */
  get cost(): number {
    return this.price(this.delivered);
  }

  /**
   * True once the payment covers delivering `frame` (counted as delivered from then on); false when it cannot be
   * had (no more authorized within the wait, or none can be asked for). `say` sends the ask to the caller.
   * Rejects with the signal's reason when the caller leaves while it waits.
   */
  async admit(frame: Buffer, say: (bytes: Buffer) => Promise<boolean>): Promise<boolean> {
    const tokens = this.meter.tokensIn(frame);
    const need = this.price(this.delivered + tokens);
    if (need > this.auth.held && !(await this.cover(need, this.delivered + tokens, say))) return false;
    this.delivered += tokens;
    return true;
  }

  /** Raises the payment to `need` or more, asking the payer once and waiting at most the configured time. */
  private async cover(
    need: number,
    tokens: number,
    say: (bytes: Buffer) => Promise<boolean>,
  ): Promise<boolean> {
    const want = this.price(tokens + this.settings.trancheTokens);
    const deadline = Date.now() + this.settings.voucherWaitMs;
    let asked = false;
    for (;;) {
      const outcome = await this.auth.raise(need, want);
      if (outcome.raised) return true;
      if (!outcome.ask) return false;
      const left = deadline - Date.now();
      if (left <= 0) return false;
      if (!asked) {
        if (!(await say(outcome.ask))) return false;
        asked = true;
      }
      await this.auth.nudge(left, this.signal);
    }
  }

  /**
   * The charge for a stream the upstream ended: its reported output when it reported one, else the count; never
   * above what the payment holds (raised to it, without asking, when the payer's authorization allows).
   */
  async final(end: StreamEvent & { type: 'end' }): Promise<number> {
    const cost = this.price(this.meter.reported(end) ?? this.delivered);
    if (cost > this.auth.held) await this.auth.raise(cost, cost);
    return Math.min(cost, this.auth.held);
  }
}
