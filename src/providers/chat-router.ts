/** Runs one chat request against an ordered list of upstream targets: retries, then fallbacks, only before the first byte. */
import { type CallSignal, pause } from '../http/call-signal.js';
import { UpstreamError } from '../http/upstream-error.js';
import { deferredStream } from './deferred-stream.js';
import type { CallContext, ChatCompletion, ChatProvider, ChatStreamEvent } from './types.js';

/** One place a model can run: an adapter and the model id that upstream knows it by. */
export interface ChatTarget {
  provider: ChatProvider;
  model: string;
}

/** What the router decided after a failed attempt (for logs and metrics). */
export interface FailedAttempt {
  target: ChatTarget;
  /** 0 for the first try of a target, 1 for its first retry, … */
  attempt: number;
  error: unknown;
  next: 'retry' | 'fallback' | 'give_up';
}

export interface ChatRouterOptions {
  /** Retries per target after the first try (config `upstreamRetries`). */
  retries: number;
  /** First backoff delay; it doubles per retry, with jitter. */
  baseDelayMs?: number;
  /** Upper bound of one backoff delay. */
  maxDelayMs?: number;
  onFailedAttempt?: (failure: FailedAttempt) => void;
  /** Source of jitter in [0, 1); injectable for tests. */
  random?: () => number;
}

export interface ChatRouter {
  /** The first successful completion among the targets, in order. */
  complete(targets: ChatTarget[], body: Record<string, unknown>, ctx: CallContext): Promise<ChatCompletion>;
  /**
   * The events of the first target whose stream produced an event. Once an event has been yielded, a
   * failure propagates as is: nothing is retried and nothing falls back after the first byte.
   */
  stream(
    targets: ChatTarget[],
    body: Record<string, unknown>,
    ctx: CallContext,
  ): AsyncIterable<ChatStreamEvent>;
}

/**
 * Per target, a failure while nothing has been received is retried with exponential backoff and jitter,
 * then the next target is tried. `bad_request` is the caller's input: never retried, never moved to
 * another target. A rejected key (401/403) or a timeout is not retried on the same target — the answer
 * would be the same, or would take another full timeout — but does fall back. `not_configured` falls
 * back too. Aborting `ctx.signal` stops waiting and retrying at once and rejects with the abort reason.
 */
export function createChatRouter(options: ChatRouterOptions): ChatRouter {
  const baseDelayMs = options.baseDelayMs ?? 100;
  const maxDelayMs = options.maxDelayMs ?? 2_000;
  const random = options.random ?? Math.random;

  /** Tries targets in order; `attemptOnce` resolves when a target has produced something. */
  async function run<T>(
    targets: ChatTarget[],
    ctx: CallContext,
    attemptOnce: (target: ChatTarget) => Promise<T>,
  ): Promise<T> {
    if (targets.length === 0)
      throw new UpstreamError('not_configured', 'no upstream is configured for this model');
    const errors: unknown[] = [];
    for (let t = 0; t < targets.length; t++) {
      const target = targets[t] as ChatTarget;
      for (let attempt = 0; ; attempt++) {
        throwIfAborted(ctx.signal);
        try {
          return await attemptOnce(target);
        } catch (err) {
          if (ctx.signal.aborted) throw ctx.signal.reason;
          errors.push(err);
          const next = decide(err, attempt, t < targets.length - 1);
          options.onFailedAttempt?.({ target, attempt, error: err, next });
          if (next === 'give_up') throw mostTelling(errors);
          if (next === 'fallback') break;
          await pause(backoffMs(attempt), ctx.signal);
        }
      }
    }
    throw mostTelling(errors);
  }

  function decide(err: unknown, attempt: number, hasNextTarget: boolean): FailedAttempt['next'] {
    if (!(err instanceof UpstreamError)) return 'give_up';
    if (err.kind === 'bad_request' || err.options.beforeFirstByte === false) return 'give_up';
    const status = err.options.status;
    const sameAgain = err.kind === 'upstream' && status !== 401 && status !== 403;
    if (sameAgain && err.retryable && attempt < options.retries) return 'retry';
    return hasNextTarget ? 'fallback' : 'give_up';
  }

  function backoffMs(attempt: number): number {
    const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
    return Math.round(ceiling / 2 + (random() * ceiling) / 2);
  }

  return {
    complete(targets, body, ctx) {
      return run(targets, ctx, (target) => target.provider.complete({ ...body, model: target.model }, ctx));
    },

    stream(targets, body, ctx) {
      // An attempt succeeds once its stream has produced its first event. The rest is the chosen
      // stream's own, step by step (no re-yielding layer), and stopping early closes it.
      return deferredStream(() =>
        run(targets, ctx, async (target) => {
          const iterator = target.provider
            .stream({ ...body, model: target.model }, ctx)
            [Symbol.asyncIterator]();
          const first = await iterator.next();
          return { iterator, first };
        }),
      );
    },
  };
}

/**
 * Of several failures, the one to report: the first `bad_request`, else the last that is not
 * `not_configured` (a real failure says more than a missing key of a fallback), else the first.
 */
function mostTelling(errors: unknown[]): unknown {
  const badRequest = errors.find((e) => e instanceof UpstreamError && e.kind === 'bad_request');
  if (badRequest) return badRequest;
  const real = errors.filter((e) => !(e instanceof UpstreamError && e.kind === 'not_configured'));
  return real.at(-1) ?? errors[0];
}

function throwIfAborted(signal: CallSignal): void {
  if (signal.aborted) throw signal.reason;
}
