/** A promise bounded by a deadline: for waits on stores and services that may stall rather than fail. */

/** What `within` rejects with when the deadline passed first, as against the promise's own failure. */
export class DeadlineError extends Error {
  constructor(readonly ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = 'DeadlineError';
  }
}

/**
 * `promise`, or a DeadlineError after `ms`. A rejection of `promise` after the deadline is not unhandled: the race
 * subscribed to it.
 */
export function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(ms)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
