/** A promise bounded by a deadline: for waits on stores and services that may stall rather than fail. */

/** `promise`, or a rejection after `ms` (the promise's own rejection then handled, never unhandled). */
export function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  promise.catch(() => {});
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
