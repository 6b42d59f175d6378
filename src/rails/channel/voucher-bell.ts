/**
 * Wakes the metered streams of this process that wait on a channel when a new voucher for it is accepted here.
 * A voucher accepted by another instance is not heard: the waiting streams also read the database now and then
 * (the channel rail's `nudge`). Written by hand: a map of waiters per channel id is all it takes, where an
 * EventEmitter would need its listener limit lifted and a real AbortSignal to unhook a waiter.
 */
import { CallAbort, type CallSignal, pause } from '../../http/call-signal.js';

export class VoucherBell {
  private readonly waiters = new Map<string, Set<() => void>>();

  /** Wakes every waiter on `channelId`. */
  ring(channelId: string): void {
    const id = channelId.toLowerCase();
    const waiting = this.waiters.get(id);
    if (!waiting) return;
    this.waiters.delete(id);
    for (const wake of waiting) wake();
  }

  /** Resolves on the next ring for `channelId` or after `ms`; rejects when `signal` aborts. */
  async wait(channelId: string, ms: number, signal: CallSignal): Promise<void> {
    const id = channelId.toLowerCase();
    const stop = new CallAbort();
    const wake = () => stop.abort();
    let waiting = this.waiters.get(id);
    if (!waiting) {
      waiting = new Set();
      this.waiters.set(id, waiting);
    }
    waiting.add(wake);
    const onAbort = () => stop.abort(signal.reason);
    signal.addEventListener('abort', onAbort);
    try {
      await pause(ms, stop);
    } catch (err) {
      if (signal.aborted) throw err;
    } finally {
      signal.removeEventListener('abort', onAbort);
      waiting.delete(wake);
      if (waiting.size === 0 && this.waiters.get(id) === waiting) this.waiters.delete(id);
    }
  }
}
