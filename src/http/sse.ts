/** A server-sent-events writer over the Node response (or a web stream under app.request), with back-pressure and disconnect detection. */
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context } from 'hono';
import type { AppEnv } from './env.js';

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

export function openSse(c: Context<AppEnv>, headers: Record<string, string>): SseSink {
  // Object.assign rather than a spread with more keys after it, which V8 builds one key at a time.
  const all: Record<string, string> = Object.assign({}, SSE_HEADERS, headers);
  all['x-request-id'] = c.get('requestId');
  const listeners: Array<() => void> = [];
  let ended = false;
  let closed = false;
  const disconnect = () => {
    if (closed) return;
    closed = true;
    if (!ended) for (const l of listeners) l();
  };
  const outgoing = c.env?.outgoing;

  if (outgoing) {
    // The status and headers are not flushed on their own: they leave with the first frames, in one send.
    outgoing.writeHead(200, all);
    outgoing.on('close', disconnect);
    return {
      get closed() {
        return closed;
      },
      async write(bytes) {
        if (closed || outgoing.destroyed) return false;
        const flowing = outgoing.write(bytes);
        // Node holds a response's writes until the next tick to send them together. The frames of one
        // upstream read already come as one write, so they leave now rather than after the tick's other work.
        outgoing.uncork();
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
        return !closed;
      },
      end(last) {
        ended = true;
        if (outgoing.destroyed) return;
        if (last && !closed) outgoing.end(last);
        else outgoing.end();
      },
      onDisconnect: (l) => listeners.push(l),
      response: RESPONSE_ALREADY_SENT,
    };
  }

  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  const stream = new ReadableStream<Uint8Array>({
    start: (ctl) => {
      controller = ctl;
    },
    cancel: () => disconnect(),
  });
  return {
    get closed() {
      return closed;
    },
    async write(bytes) {
      if (closed) return false;
      controller?.enqueue(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      return true;
    },
    end(last) {
      if (ended) return;
      ended = true;
      if (!closed) {
        if (last) controller?.enqueue(new Uint8Array(last.buffer, last.byteOffset, last.byteLength));
        controller?.close();
      }
      closed = true;
    },
    onDisconnect: (l) => listeners.push(l),
    response: new Response(stream, { status: 200, headers: all }),
  };
}
