/**
 * Retries a queue's reads (status and result) when they fail transiently, as the providers' official clients do
 * (fal's retries a status read 5×, a result read 3× on 429/500/502/503/504; Replicate's every GET on 429 and 5xx):
 * exponential backoff with jitter, never sooner than the upstream's `Retry-After`. When kasir gives up, the job is
 * cancelled upstream (best effort), so the provider does not finish and bill work nobody will be charged for.
 * Submits are never retried here: a repeated submit could start (and bill) the job twice.
 */
import { CallAbort, type CallSignal, pause } from '../../http/call-signal.js';
import { UpstreamError } from '../../http/upstream-error.js';
import type { MediaQueue } from './types.js';

/** Counts retries and give-ups, by provider and by read (`status`, `result`). */
export interface ReadObserver {
  retried(provider: string, read: 'status' | 'result'): void;
  gaveUp(provider: string, read: 'status' | 'result'): void;
}

export interface ReadRetryPolicy {
  /** Retries of one read after its first failure (0: none). */
  retries: number;
  /** The first backoff; each next one doubles, with jitter (a random half to full of it). */
  baseMs: number;
  /** The longest wait before one retry, `Retry-After` included. */
  maxMs: number;
  observer?: ReadObserver | undefined;
}

/** True for a failure that may pass on its own: a transient status, a connection failure or a timeout. */
export function isTransient(err: unknown): boolean {
  if (!(err instanceof UpstreamError) || err.kind === 'bad_request') return false;
  const { status } = err.options;
  if (status === undefined) return err.options.beforeFirstByte === true;
  return status === 408 || status === 429 || status >= 500;
}

/** The wait before retry number `attempt` (0-based): full-jitter exponential backoff, at least `Retry-After`. */
export function retryDelay(policy: ReadRetryPolicy, attempt: number, err: unknown): number {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** attempt);
  const jittered = Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
  const asked = err instanceof UpstreamError ? err.options.retryAfterMs : undefined;
  return Math.min(policy.maxMs, Math.max(jittered, asked ?? 0));
}

/** `queue` whose status and result reads are retried per `policy`, and cancelled upstream when given up. */
export function retryingReads(queue: MediaQueue, provider: string, policy: ReadRetryPolicy): MediaQueue {
  const read = async <T>(
    which: 'status' | 'result',
    handle: Record<string, unknown>,
    signal: CallSignal,
    once: () => Promise<T>,
  ): Promise<T> => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await once();
      } catch (err) {
        if (signal.aborted || !isTransient(err)) throw err;
        if (attempt >= policy.retries) {
          policy.observer?.gaveUp(provider, which);
          // A fresh signal: the cancel must go out whatever became of the call's.
          if (queue.cancel) void queue.cancel(handle, new CallAbort()).catch(() => {});
          const failure = err as UpstreamError;
          throw new UpstreamError(
            failure.kind,
            `${failure.message} (the ${which} read failed ${attempt + 1} times; kasir gave up${queue.cancel ? ' and cancelled the job upstream' : ''})`,
            failure.options,
          );
        }
        policy.observer?.retried(provider, which);
        await pause(retryDelay(policy, attempt, err), signal);
      }
    }
  };
  return {
    submit: (call) => queue.submit(call),
    status: (handle, signal) => read('status', handle, signal, () => queue.status(handle, signal)),
    result: (handle, signal) => read('result', handle, signal, () => queue.result(handle, signal)),
    ...(queue.cancel ? { cancel: queue.cancel.bind(queue) } : {}),
  };
}
