/**
 * One upstream request whose 2xx answer is read as server-sent-event frames while it arrives, through undici's
 * dispatch API. Written against the handler interface for the reason bufferedRequest is (buffered.ts): undici's
 * `request()` builds a body stream, its async iterator and abort-signal wiring for every call, which cost more
 * than a short relay's own work; here each received chunk is split into frames and handed to the reader as is.
 */
import type { Dispatcher } from 'undici';
import type { CallSignal } from '../http/call-signal.js';
import { SseFrameSplitter } from './sse.js';

/** The frames of a 2xx body and how to let go of it. */
export interface StreamedFrames {
  /** The SSE frames of the body as they arrive, grouped by the network read that completed them. */
  groups: AsyncIterable<Buffer[]>;
  /**
   * Call once, when done with the body. After a clean end the rest is read in the background (bounded,
   * and by the body timeout) so the connection goes back to the pool without holding up the caller;
   * otherwise the connection is cut, which also tells the upstream to stop generating.
   */
  release(clean: boolean): void;
}

export type StreamedAnswer =
  | { ok: true; frames: StreamedFrames }
  | { ok: false; statusCode: number; body: Buffer };

/** What may still follow an answer's terminal event (the chunked-encoding end, stray keep-alives). */
const TRAILER_LIMIT = 64 * 1024;
/** Received and not yet read past this, the upstream is paused until the reader catches up. */
const HIGH_WATER_BYTES = 256 * 1024;

const DONE: IteratorResult<Buffer[]> = { done: true, value: undefined };

/**
 * The reading side of a streamed answer: an async iterator over frame groups, fed by the dispatch handler. The
 * frames that arrive in one turn of the event loop (undici hands over a chunked body one HTTP chunk at a time,
 * so one network read is often many calls) are given to the reader as one group, so a relay writes them out
 * together. One pending read at a time, as `for await` reads.
 */
class FrameQueue implements AsyncIterableIterator<Buffer[]>, StreamedFrames {
  readonly groups = this;
  private readonly splitter = new SseFrameSplitter();
  /** Frames received and not yet read, in order. */
  private unread: Buffer[] = [];
  private unreadBytes = 0;
  private waiting: { resolve(r: IteratorResult<Buffer[]>): void; reject(err: unknown): void } | null = null;
  private handOffQueued = false;
  private ended = false;
  private failure: { err: unknown } | null = null;
  /** Set by release(): what still arrives is drained (clean) or the request was cut. */
  private released = false;
  private drainLeft = TRAILER_LIMIT;

  constructor(
    private readonly controller: Dispatcher.DispatchController,
    private readonly detach: () => void,
  ) {}

  [Symbol.asyncIterator]() {
    return this;
  }

  next(): Promise<IteratorResult<Buffer[]>> {
    if (this.unread.length > 0) return Promise.resolve({ done: false, value: this.takeUnread() });
    if (this.failure) return Promise.reject(this.failure.err);
    if (this.ended) return Promise.resolve(DONE);
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  /** Stopping a `for await` early: the body is let go by release(), which the reader always calls. */
  return(): Promise<IteratorResult<Buffer[]>> {
    return Promise.resolve(DONE);
  }

  // A bound field: readers take `release` off the object.
  readonly release = (clean: boolean): void => {
    if (this.released) return;
    this.released = true;
    this.unread = [];
    this.unreadBytes = 0;
    if (this.ended || this.failure) return;
    if (!clean) {
      this.failure = { err: new Error('the reader let go of the upstream body') };
      this.detach();
      this.controller.abort(this.failure.err as Error);
      return;
    }
    if (this.controller.paused) this.controller.resume();
  };

  /** Bytes from the upstream. */
  data(chunk: Buffer): void {
    if (this.released) {
      this.drainLeft -= chunk.length;
      if (this.drainLeft < 0) this.controller.abort(new Error('the upstream kept sending after its end'));
      return;
    }
    let frames: Buffer[];
    try {
      frames = this.splitter.push(chunk);
    } catch (err) {
      this.fail(err);
      this.controller.abort(err as Error);
      return;
    }
    if (frames.length === 0) return;
    for (const frame of frames) {
      this.unread.push(frame);
      this.unreadBytes += frame.length;
    }
    if (this.unreadBytes > HIGH_WATER_BYTES) this.controller.pause();
    this.queueHandOff();
  }

  end(): void {
    if (this.ended || this.failure) return;
    const last = this.released ? undefined : this.splitter.flush();
    if (last) this.unread.push(last);
    this.ended = true;
    this.detach();
    this.queueHandOff();
  }

  fail(err: unknown): void {
    if (this.ended || this.failure) return;
    this.failure = { err };
    this.detach();
    this.queueHandOff();
  }

  /** Answers a waiting reader once this turn's calls are over: with every frame by then, else the end or failure. */
  private queueHandOff(): void {
    if (!this.waiting || this.handOffQueued) return;
    this.handOffQueued = true;
    queueMicrotask(() => {
      this.handOffQueued = false;
      const waiting = this.waiting;
      if (!waiting) return;
      this.waiting = null;
      if (this.unread.length > 0) waiting.resolve({ done: false, value: this.takeUnread() });
      else if (this.failure) waiting.reject(this.failure.err);
      else if (this.ended) waiting.resolve(DONE);
      else this.waiting = waiting;
    });
  }

  private takeUnread(): Buffer[] {
    const group = this.unread;
    this.unread = [];
    this.unreadBytes = 0;
    if (this.controller.paused) this.controller.resume();
    return group;
  }
}

/**
 * Sends `options` through `dispatcher`. Resolves at the response's start with its frames when the status is
 * 2xx, or once the body has ended (or `errorLimit` bytes of it arrived) with the status and the body otherwise.
 * Rejects with undici's error (timeouts and connection failures carry its `UND_ERR_*` codes) or, when `signal`
 * aborts, with the signal's reason; the request is cut either way. After the start, failures reach the reader.
 */
export function streamedRequest(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  signal: CallSignal,
  errorLimit: number,
): Promise<StreamedAnswer> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    let controller: Dispatcher.DispatchController | null = null;
    let frames: FrameQueue | null = null;
    /** Before the start, or for a non-2xx answer: the promise is still to be settled. */
    let pending = true;
    let statusCode = 0;
    const errorChunks: Buffer[] = [];
    let errorSize = 0;
    const detach = () => signal.removeEventListener('abort', onAbort);
    const refuse = (err: unknown) => {
      if (!pending) return;
      pending = false;
      detach();
      reject(err);
    };
    const answerError = () => {
      if (!pending) return;
      pending = false;
      detach();
      resolve({ ok: false, statusCode, body: Buffer.concat(errorChunks, errorSize) });
    };
    function onAbort() {
      const { reason } = signal;
      const err = reason instanceof Error ? reason : new Error('request aborted');
      refuse(reason);
      frames?.fail(reason);
      controller?.abort(err);
    }
    signal.addEventListener('abort', onAbort, { once: true });

    dispatcher.dispatch(options, {
      onRequestStart(c) {
        controller = c;
        // Aborted while queued for a connection: stop before anything is sent.
        if (signal.aborted) c.abort(new Error('request no longer wanted'));
      },
      onResponseStart(c, status) {
        statusCode = status;
        if (status < 200 || status >= 300) return;
        pending = false;
        frames = new FrameQueue(c, detach);
        resolve({ ok: true, frames });
      },
      onResponseData(c, chunk) {
        if (frames) {
          frames.data(chunk);
          return;
        }
        errorChunks.push(chunk);
        errorSize += chunk.length;
        if (errorSize >= errorLimit) {
          answerError();
          c.abort(new Error('error body too long'));
        }
      },
      onResponseEnd() {
        if (frames) frames.end();
        else answerError();
      },
      onResponseError(_c, err) {
        if (frames) frames.fail(err);
        else refuse(err);
      },
    });
  });
}
