/**
 * The tools' outbound HTTP runtime, built once per server: one undici Agent whose connections go through the
 * private-address guard, and one gate per upstream (a concurrency limit, and a pause after the upstream answers
 * 429) so a busy caller cannot get the operator's access to a public API throttled or banned.
 */
import pLimit, { type LimitFunction } from 'p-limit';
import type { ToolsConfig } from '../../config/tools.js';
import { Agent } from '../../http/undici.js';
import { retryAfterMs } from '../../providers/retry-after.js';
import { type AddressGuard, createAddressGuard } from './guard.js';

/** How long an upstream that answered 429 without Retry-After is left alone; and the longest pause honoured. */
const DEFAULT_PAUSE_MS = 5_000;
const MAX_PAUSE_MS = 120_000;

/** One upstream's gate: at most `concurrency` requests in flight, none while paused after a 429. */
export class UpstreamGate {
  private readonly limit: LimitFunction;
  private pausedUntil = 0;

  constructor(concurrency: number) {
    this.limit = pLimit(concurrency);
  }

  run<T>(fn: () => Promise<T>): Promise<T> {
    return this.limit(fn);
  }

  /** Milliseconds left of the pause, 0 when requests may go. */
  pausedFor(now = Date.now()): number {
    return Math.max(0, this.pausedUntil - now);
  }

  /** Pauses after a 429; `retryAfter` is the header's value (seconds or an HTTP date), if any. */
  pause(retryAfter: string | undefined, now = Date.now()): number {
    const ms = retryAfterMs(retryAfter, now) ?? DEFAULT_PAUSE_MS;
    const bounded = Math.min(Math.max(ms, 0), MAX_PAUSE_MS);
    this.pausedUntil = Math.max(this.pausedUntil, now + bounded);
    return bounded;
  }
}

export interface ToolHttp {
  readonly agent: Agent;
  readonly guard: AddressGuard;
  readonly timeoutMs: number;
  /** The gate of the upstream named `name` (one per name, shared by every tool that calls it). */
  gate(name: string): UpstreamGate;
  close(): Promise<void>;
}

export function createToolHttp(config: ToolsConfig, allowedHosts: ReadonlySet<string>): ToolHttp {
  const guard = createAddressGuard(allowedHosts);
  const agent = new Agent({
    connect: { timeout: config.timeoutMs, lookup: guard.lookup },
    keepAliveTimeout: 10_000,
  });
  const gates = new Map<string, UpstreamGate>();
  return {
    agent,
    guard,
    timeoutMs: config.timeoutMs,
    gate(name) {
      let gate = gates.get(name);
      if (!gate) {
        gate = new UpstreamGate(config.concurrency);
        gates.set(name, gate);
      }
      return gate;
    },
    close: () => agent.close(),
  };
}
