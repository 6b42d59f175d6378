/**
 * A metered stream's running tab: the output delivered so far, priced as a quote is (never above the quote), and
 * the payment raised ahead of it a tranche at a time. A frame whose output the payment does not cover waits: the
 * tab asks the payer for more (the rail's event, e.g. `payment-need-voucher`) and stops reading the upstream until
 * the payer authorizes more or the wait runs out.
 */
import type { CallSignal } from '../http/call-signal.js';
import { SseFrameSplitter } from '../providers/sse.js';
import type { MeteredAuthorization } from '../rails/types.js';
import type { OutputMeter, StreamEvent } from './offer.js';

/** How a metered stream is paid for (the channel rail's settings). */
export interface MeteringSettings {
  /** Output tokens paid ahead of what was delivered. */
  trancheTokens: number;
  /** How long a stream waits for the payer to authorize more before it ends. */
  voucherWaitMs: number;
}

/** The price of a stream's output so far (capped by the quote), with the settings it is metered by. */
export type MeteredPrice = ((outputTokens: number) => number) & { settings: MeteringSettings };

export class StreamTab {
  private delivered = 0;

  constructor(
    private readonly auth: MeteredAuthorization,
    private readonly meter: OutputMeter,
    /** The price of the call had it produced `outputTokens`, capped by the quote. */
    private readonly price: MeteredPrice,
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
   * Forwards `bytes` (complete frames) with `send` as far as the payment covers their output: at once when it does,
   * else frame by frame, raising the payment ahead (asking the payer with `send`, and waiting) before a frame it does
   * not cover. False when the stream must end here: no more could be had, or the caller is gone (`send` said so).
   * Rejects with the signal's reason when the caller leaves while it waits.
   */
  async pass(bytes: Buffer, send: (bytes: Buffer) => Promise<boolean>): Promise<boolean> {
    const tokens = this.meter.tokensIn(bytes);
    if (this.price(this.delivered + tokens) <= this.auth.held) {
      this.delivered += tokens;
      return send(bytes);
    }
    // A network read can carry several frames: each is paid for before it leaves.
    const splitter = new SseFrameSplitter();
    const frames = splitter.push(bytes);
    const rest = splitter.flush();
    if (rest) frames.push(rest);
    for (const frame of frames) {
      const more = frames.length === 1 ? tokens : this.meter.tokensIn(frame);
      const need = this.price(this.delivered + more);
      if (need > this.auth.held && !(await this.cover(need, this.delivered + more, send))) return false;
      this.delivered += more;
      if (!(await send(frame))) return false;
    }
    return true;
  }

  /** Raises the payment to `need` or more, asking the payer once and waiting at most the configured time. */
  private async cover(
    need: number,
    tokens: number,
    say: (bytes: Buffer) => Promise<boolean>,
  ): Promise<boolean> {
    const want = this.price(tokens + this.price.settings.trancheTokens);
    const deadline = Date.now() + this.price.settings.voucherWaitMs;
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
