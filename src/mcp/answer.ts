/**
 * The app's answer to a request the MCP adapter sent it in process, as the adapter reads it: status, headers and the
 * body. A JSON answer the exchange sent is read as it was sent (see http/in-process.ts); anything else (an error
 * Hono rendered, an image's bytes) from the Fetch response.
 */
import type { InProcessCall } from '../http/in-process.js';

export interface Answer {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: Headers;
  json(): Promise<unknown>;
  arrayBuffer(): Promise<ArrayBuffer>;
  /** Drops a body that will not be read. */
  discard(): Promise<void>;
}

/** The answer `res` stands for, its body taken from `call` when the exchange sent it. */
export function answerOf(res: Response, call: InProcessCall): Answer {
  const sent = call.sent;
  if (sent === undefined || sent.status !== res.status) {
    return {
      status: res.status,
      ok: res.ok,
      headers: res.headers,
      json: () => res.json(),
      arrayBuffer: () => res.arrayBuffer(),
      discard: async () => {
        await res.body?.cancel();
      },
    };
  }
  return {
    status: res.status,
    ok: res.ok,
    headers: res.headers,
    json: async () => JSON.parse(sent.body),
    arrayBuffer: async () => {
      const bytes = Buffer.from(sent.body);
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    },
    discard: async () => {},
  };
}
