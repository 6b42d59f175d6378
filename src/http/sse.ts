/** A server-sent-events writer over the Node response (or a web stream under app.request), with back-pressure and disconnect detection. */
import type { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Listeners } from './listeners.js';

export interface SseSink {
  /** Resolves when the bytes are handed to the socket (waits on back-pressure); false if the caller is gone. */
  write(bytes: Buffer): Promise<boolean>;
  /** Ends the response; `last` bytes, if any, go out together with the end. */
  end(last?: Buffer): void;
  readonly closed: boolean;
  /** Called once if the caller disconnects before end(). */
  onDisconnect(listener: () => void): void;
  /** What the route handler returns. */
  response: Response;
}

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
} as const;

/** The SSE headers, the caller's `headers` and the request id, in one object. */
function sseHeaders(headers: Record<string, string>, requestId: string): Record<string, string> {
  // Object.assign rather than a spread with more keys after it, which V8 builds one key at a time.
  const all: Record<string, string> = Object.assign({}, SSE_HEADERS, headers);
  all['x-request-id'] = requestId;
  return all;
}

/**
 * What both sinks share: the disconnect listeners, and whether the stream ended or the caller left.
 *
 * The sinks are classes, not object literals. A literal with a getter (`get closed()`) is built in dictionary mode,
 * its getter held by an accessor pair of its own that V8 allocates in the old generation. That pair outlives the
 * call until the next full collection, and through its getter's closure it held every young object of the call (the
 * response, the request, the paid call): each scavenge kept and promoted them all. On a streamed chat call that was
 * 2 MB promoted a scavenge and 6–7 ms pauses; with these classes, 0.1 MB and 2 ms, and the streamed call costs about
 * a third less CPU (see the README's performance notes). A getter on a class lives once, on its prototype.
 */
abstract class SinkState {
  closed = false;
  protected ended = false;
  private readonly listeners = new Listeners();
  abstract readonly response: Response;

  /** The caller left: tells the listeners once, unless the stream had already ended. */
  readonly disconnect = (): void => {
    if (this.closed) return;
    this.closed = true;
    if (!this.ended) this.listeners.callAll();
    this.listeners.clear();
  };

  onDisconnect(listener: () => void): void {
    this.listeners.add(listener);
  }

  /**
   * Lets go of what the call hung on the sink, once the stream has ended. V8 may allocate sinks in the old generation
   * (see listeners.ts): in runs where it did, a finished sink kept its response and, through its listeners, the
   * whole call until the next full collection, and each scavenge promoted them. Letting go took that from 1.3 to
   * 0.9 MB a scavenge (pauses 7.3–9.1 → 5.4–7.5 ms, 427–540 → 406–485 µs a call, side by side).
   */
  protected release(): void {
    this.listeners.clear();
  }
}

/** Streams onto a Node response. */
class NodeSseSink extends SinkState implements SseSink {
  readonly response = RESPONSE_ALREADY_SENT;

  // Dropped at the end (see release()).
  constructor(private outgoing: ServerResponse | undefined) {
    super();
  }

  async write(bytes: Buffer): Promise<boolean> {
    const outgoing = this.outgoing;
    if (this.closed || !outgoing || outgoing.destroyed) return false;
    // Node holds a response's writes until the next tick and sends them together: the promise jobs that run
    // first are this turn's, so frames wait microseconds, and a stream whose end came in the same read (its
    // last frames, the closing frame and the end of the chunked body) leaves in one send instead of two.
    if (outgoing.write(bytes)) return true;
    await new Promise<void>((resolve) => {
      const done = () => {
        outgoing.off('drain', done);
        outgoing.off('close', done);
        resolve();
      };
      outgoing.on('drain', done);
      outgoing.on('close', done);
    });
    return !this.closed;
  }

  end(last?: Buffer): void {
    this.ended = true;
    const outgoing = this.outgoing;
    this.release();
    if (!outgoing || outgoing.destroyed) return;
    if (last && !this.closed) outgoing.end(last);
    else outgoing.end();
  }

  protected override release(): void {
    super.release();
    this.outgoing = undefined;
  }
}

/** Streams onto a Node response; `onHangUp` registers for the caller leaving before the response is complete. */
export function nodeSse(
  outgoing: ServerResponse,
  headers: Record<string, string>,
  requestId: string,
  onHangUp: (listener: () => void) => void,
): SseSink {
  const sink = new NodeSseSink(outgoing);
  // The status and headers are not flushed on their own: they leave with the first frames, in one send.
  outgoing.writeHead(200, sseHeaders(headers, requestId));
  onHangUp(sink.disconnect);
  return sink;
}

/** Streams into a web ReadableStream, the body of its Response. */
class WebSseSink extends SinkState implements SseSink {
  readonly response: Response;
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined;

  constructor(headers: Record<string, string>) {
    super();
    const stream = new ReadableStream<Uint8Array>({
      start: (ctl) => {
        this.controller = ctl;
      },
      cancel: () => this.disconnect(),
    });
    this.response = new Response(stream, { status: 200, headers });
  }

  async write(bytes: Buffer): Promise<boolean> {
    if (this.closed) return false;
    this.controller?.enqueue(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    return true;
  }

  end(last?: Buffer): void {
    if (this.ended) return;
    this.ended = true;
    if (!this.closed) {
      if (last) this.controller?.enqueue(new Uint8Array(last.buffer, last.byteOffset, last.byteLength));
      this.controller?.close();
    }
    this.closed = true;
    this.release();
  }
}

/** Streams into a web ReadableStream, the body of the returned Response (under app.request). */
export function webSse(headers: Record<string, string>, requestId: string): SseSink {
  return new WebSseSink(sseHeaders(headers, requestId));
}
