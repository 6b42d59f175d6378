/** Streams responses straight to the Node response when there is one (no Fetch-API objects on the way). */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context } from 'hono';
import type { AppEnv } from './env.js';

/**
 * Sends `body` with `status` and `headers`. Under @hono/node-server the bytes go from the Node stream to the
 * socket with back-pressure; under `app.request()` (tests) they go through a web stream. A HEAD request is
 * answered with a Response in both: Hono answers HEAD by wrapping the GET handler's Response in a new one, which
 * loses the mark of a response already written to the socket, so the server would write the head a second time
 * (ERR_HTTP_HEADERS_SENT, logged, and the kept-alive connection destroyed).
 */
export function sendStream(
  c: Context<AppEnv>,
  status: number,
  headers: Record<string, string>,
  body: Readable | null,
): Response {
  const outgoing = c.env?.outgoing;
  const all = { ...headers, 'x-request-id': c.get('requestId') };
  if (outgoing && c.req.method !== 'HEAD') {
    outgoing.writeHead(status, all);
    if (!body) {
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
