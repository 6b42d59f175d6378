/**
 * A stream that starts on its first `next()` and then hands every step straight to the iterator it started.
 * An adapter that opens the upstream request and then `yield*`s its relay, or a router that picks a
 * target and then re-yields its events, would each add an async generator layer — a promise chain per
 * event per layer — on top of the relay's own. Delegating adds none.
 */

/** What starting the stream produced: the iterator to delegate to, and its first result if already read. */
export interface StartedStream<T> {
  iterator: AsyncIterator<T>;
  first?: IteratorResult<T>;
}

const DONE: IteratorResult<never> = { done: true, value: undefined };

/**
 * Like an async generator whose body runs `start` and then yields what the started iterator yields:
 * nothing happens before the first `next()`, a failed start ends the stream, and `return()` is passed on
 * to the started iterator (closing the upstream when the consumer stops early). Read one step at a time,
 * as `for await` does.
 */
export function deferredStream<T>(start: () => Promise<StartedStream<T>>): AsyncIterableIterator<T> {
  let inner: AsyncIterator<T> | undefined;
  let begun = false;
  const stream: AsyncIterableIterator<T> = {
    [Symbol.asyncIterator]: () => stream,
    next() {
      if (inner) return inner.next();
      if (begun) return Promise.resolve(DONE);
      begun = true;
      return start().then(({ iterator, first }) => {
        inner = iterator;
        return first ?? iterator.next();
      });
    },
    return() {
      const started = inner;
      inner = undefined;
      begun = true;
      return started?.return ? started.return() : Promise.resolve(DONE);
    },
  };
  return stream;
}
