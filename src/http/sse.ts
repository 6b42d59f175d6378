/** A server-sent-events writer over the Node response (or a web stream under app.request), with back-pressure and disconnect detection. */
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context } from 'hono';
import type { AppEnv } from './env.js';

export interface SseSink {
  /** Resolves when the bytes are handed to the socket (waits on back-pressure); false if the caller is gone. */
  write(bytes: Buffer): Promise<boolean>;
  end(): void;
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
  const all = { ...SSE_HEADERS, ...headers, 'x-request-id': c.get('requestId') };
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
    outgoing.writeHead(200, all);
    outgoing.flushHeaders();
    outgoing.on('close', disconnect);
    return {
      get closed() {
        return closed;
      },
      async write(bytes) {
        if (closed || outgoing.destroyed) return false;
        // Frames that arrive in the same tick (one upstream chunk often carries several) go out in one syscall.
        if (!outgoing.writableCorked) {
          outgoing.cork();
          process.nextTick(() => outgoing.uncork());
        }
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
        return !closed;
      },
      end() {
        ended = true;
        if (!outgoing.destroyed) outgoing.end();
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
    end() {
      if (ended) return;
      ended = true;
      if (!closed) controller?.close();
      closed = true;
    },
    onDisconnect: (l) => listeners.push(l),
    response: new Response(stream, { status: 200, headers: all }),
  };
}
