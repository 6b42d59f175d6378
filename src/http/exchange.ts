/**
 * One request and its answer as a paid route sees them, whoever serves it: the Node server directly (a lane, see
 * lanes.ts), or Hono (on Node, or under `app.request()` in tests). The checkout is written against this and never
 * against a framework's context, so the same code answers on every path.
 */
import type { Context } from 'hono';
import type { AppEnv } from './env.js';
import { fetchExchange } from './fetch-exchange.js';
import { nodeExchange } from './node-exchange.js';
import type { SseSink } from './sse.js';

export interface Exchange {
  readonly method: string;
  /** The path without the query string, e.g. `/v1/chat/completions`. */
  readonly path: string;
  readonly requestId: string;
  /** A request header by its lower-case name. */
  header(name: string): string | undefined;
  /** The whole body, refusing more than `limit` bytes with 413. */
  readBody(limit: number): Promise<Buffer>;
  /**
   * Answers with `status`, `headers` (content-type included; the exchange takes the object over and may add to
   * it) and `body`. What is returned is what a Hono handler returns; a lane ignores it.
   */
  send(status: number, body: string, headers: Record<string, string>): Response;
  /** Starts a stream of server-sent events with status 200 and `headers` added to the SSE ones. */
  openSse(headers: Record<string, string>): SseSink;
  /** Calls `listener` once if the caller hangs up before the answer is complete. */
  onHangUp(listener: () => void): void;
}

export const JSON_TYPE = 'application/json; charset=utf-8';

/** Answers with a serialised JSON body. */
export function sendJson(
  x: Exchange,
  status: number,
  body: string,
  headers: Record<string, string>,
): Response {
  // Object.assign rather than a spread: fewer steps, and no dictionary-mode object on the hot path.
  return x.send(status, body, Object.assign({ 'content-type': JSON_TYPE }, headers));
}

/** The exchange of a Hono request: over the Node request and response when Hono runs on Node, else Fetch objects. */
export function exchangeOf(c: Context<AppEnv>): Exchange {
  const env = c.env;
  // A body Hono has started reading is only readable through Hono.
  if (env?.incoming && env.outgoing && !env.incoming.readableDidRead)
    return nodeExchange(env.incoming, env.outgoing, c.req.path, c.get('requestId'));
  return fetchExchange(c);
}
