/** Writes responses straight to the Node response when there is one (no Fetch-API objects on the hot path). */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context } from 'hono';
import type { AppEnv } from './env.js';

/**
 * Sends `body` with `status` and `headers`. Under @hono/node-server the bytes go from the Node stream to the
 * socket with back-pressure; under `app.request()` (tests) they go through a web stream.
 */
export function sendStream(
  c: Context<AppEnv>,
  status: number,
  headers: Record<string, string>,
  body: Readable | null,
): Response {
  const outgoing = c.env?.outgoing;
  const all = { ...headers, 'x-request-id': c.get('requestId') };
  if (outgoing) {
    outgoing.writeHead(status, all);
    if (!body || c.req.method === 'HEAD') {
      body?.destroy();
      outgoing.end();
    } else {
      pipeline(body, outgoing).catch(() => {
        // The client went away or the store failed mid-stream: the socket is closed either way.
        if (!outgoing.destroyed) outgoing.destroy();
      });
    }
    return RESPONSE_ALREADY_SENT;
  }
  const webBody = body && c.req.method !== 'HEAD' ? (Readable.toWeb(body) as ReadableStream) : null;
  if (c.req.method === 'HEAD') body?.destroy();
  return new Response(webBody, { status, headers: all });
}

export const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Sends a serialised JSON body. Under @hono/node-server it is written to the Node response in one go: going
 * through the context with more than one header would build a WHATWG Headers object and a Response, and then
 * convert them back, on every paid call.
 */
export function sendJson(
  c: Context<AppEnv>,
  status: number,
  body: string,
  headers: Record<string, string>,
): Response {
  const outgoing = c.env?.outgoing;
  if (outgoing) {
    outgoing.writeHead(
      status,
      Object.assign(
        { 'content-type': JSON_TYPE, 'content-length': String(Buffer.byteLength(body)) },
        headers,
      ),
    );
    outgoing.end(body);
    return RESPONSE_ALREADY_SENT;
  }
  return c.body(body, status as 200, Object.assign({ 'content-type': JSON_TYPE }, headers));
}
