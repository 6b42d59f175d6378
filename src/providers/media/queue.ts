/**
 * Runs a queued media call to its end: submit, poll with backoff until a terminal state, fetch the result; and
 * builds the adapter of a provider that works as such a queue.
 */
import type { ProviderConfig, ProviderName } from '../../config/providers.js';
import { CallAbort, type CallSignal, pause } from '../../http/call-signal.js';
import { UpstreamError } from '../../http/upstream-error.js';
import { providerBase } from './base.js';
import { type ReadRetryPolicy, retryingReads } from './read-retry.js';
import type { MediaCall, MediaOutput, MediaProvider, MediaQueue } from './types.js';

export interface PollTiming {
  /** First wait between status reads; each next wait is 1.5× the last, up to `maxMs`. */
  firstMs: number;
  maxMs: number;
  /** A call not finished after this long fails with a timeout (and is cancelled upstream). */
  deadlineMs: number;
  /** How failed status and result reads are retried (none when absent). */
  reads?: ReadRetryPolicy;
}

/** The queue whose reads are retried per `timing.reads`, as every adapter's queue is. */
export function withReadRetries(queue: MediaQueue, timing: PollTiming, provider: string): MediaQueue {
  return timing.reads ? retryingReads(queue, provider, timing.reads) : queue;
}

/**
 * Polls `handle` until it succeeds (then reads the result) or fails. A failure the upstream blames on the input
 * is a `bad_request`; past the deadline, or when the caller leaves, the call is cancelled upstream (best effort).
 */
export async function awaitQueued(
  queue: MediaQueue,
  handle: Record<string, unknown>,
  signal: CallSignal,
  timing: PollTiming,
  provider: string,
): Promise<MediaOutput> {
  const started = Date.now();
  let wait = timing.firstMs;
  try {
    for (;;) {
      const state = await queue.status(handle, signal);
      if (state.state === 'succeeded') return await queue.result(handle, signal);
      if (state.state === 'failed')
        throw new UpstreamError(
          state.callerFault ? 'bad_request' : 'upstream',
          `${provider} failed the job: ${state.message}`,
          { upstreamMessage: state.message },
        );
      if (Date.now() - started + wait > timing.deadlineMs)
        throw new UpstreamError('timeout', `${provider} did not finish within ${timing.deadlineMs} ms`);
      await pause(wait, signal);
      wait = Math.min(timing.maxMs, Math.ceil(wait * 1.5));
    }
  } catch (err) {
    if (queue.cancel && !(err instanceof UpstreamError && err.kind !== 'timeout')) {
      // The caller left or the deadline passed: stop the upstream's work (a fresh signal: the call's is aborted).
      void queue.cancel(handle, new CallAbort()).catch(() => {});
    }
    throw err;
  }
}

/** Submits `call` to the queue and waits for its result. */
export async function runQueued(
  queue: MediaQueue,
  call: MediaCall,
  timing: PollTiming,
  provider: string,
): Promise<MediaOutput> {
  const handle = await queue.submit(call);
  return awaitQueued(queue, handle, call.signal, timing, provider);
}

/** A provider that works as a queue: each call submitted and polled to its end; it can run once its key is set. */
export function queuedProvider(
  name: ProviderName,
  config: ProviderConfig,
  queue: MediaQueue,
  timing: PollTiming,
  files: Pick<MediaProvider, 'fileInputs' | 'trusted'>,
): MediaProvider {
  const retrying = withReadRetries(queue, timing, name);
  return {
    ...providerBase(name, config, files.fileInputs, files.trusted),
    queue: retrying,
    run: (call) => runQueued(retrying, call, timing, name),
  };
}
