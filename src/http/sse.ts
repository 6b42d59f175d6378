/** A server-sent-events writer over the Node response (or a web stream under app.request), with back-pressure and disconnect detection. */
import type { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';

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

/** Tells `listeners` once about a disconnect that comes before the end. */
function disconnects() {
  const listeners: Array<() => void> = [];
  const state = {
    ended: false,
    closed: false,
    listeners,
    disconnect() {
      if (state.closed) return;
      state.closed = true;
      if (!state.ended) for (const l of listeners) l();
    },
  };
  return state;
}

/** Streams onto a Node response; `onHangUp` registers for the caller leaving before the response is complete. */
export function nodeSse(
  outgoing: ServerResponse,
  headers: Record<string, string>,
  requestId: string,
  onHangUp: (listener: () => void) => void,
): SseSink {
  const state = disconnects();
  // The status and headers are not flushed on their own: they leave with the first frames, in one send.
  outgoing.writeHead(200, sseHeaders(headers, requestId));
  onHangUp(state.disconnect);
  return {
    get closed() {
      return state.closed;
    },
    async write(bytes) {
      if (state.closed || outgoing.destroyed) return false;
      // Node holds a response's writes until the next tick and sends them together: the promise jobs that run
      // first are this turn's, so frames wait microseconds, and a stream whose end came in the same read (its
      // last frames, the closing frame and the end of the chunked body) leaves in one send instead of two.
      const flowing = outgoing.write(bytes);
      if (flowing) return true;
      await new Promise<void>((resolve) => {
        const done = () => {
          outgoing.off('drain', done);
          outgoing.off('close', done);
          resolve();
        };
        outgoing.on('drain', done);
        outgoing.on('close', done);
      });
      return !state.closed;
    },
    end(last) {
      state.ended = true;
      if (outgoing.destroyed) return;
      if (last && !state.closed) outgoing.end(last);
      else outgoing.end();
    },
    onDisconnect: (l) => state.listeners.push(l),
    response: RESPONSE_ALREADY_SENT,
  };
}

/** Streams into a web ReadableStream, the body of the returned Response (under app.request). */
export function webSse(headers: Record<string, string>, requestId: string): SseSink {
  const state = disconnects();
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  const stream = new ReadableStream<Uint8Array>({
    start: (ctl) => {
      controller = ctl;
    },
    cancel: () => state.disconnect(),
  });
  return {
    get closed() {
      return state.closed;
    },
    async write(bytes) {
      if (state.closed) return false;
      controller?.enqueue(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      return true;
    },
    end(last) {
      if (state.ended) return;
      state.ended = true;
      if (!state.closed) {
        if (last) controller?.enqueue(new Uint8Array(last.buffer, last.byteOffset, last.byteLength));
        controller?.close();
      }
      state.closed = true;
    },
    onDisconnect: (l) => state.listeners.push(l),
    response: new Response(stream, { status: 200, headers: sseHeaders(headers, requestId) }),
  };
}
