/**
 * A request kasir sends itself, in process (an MCP tool call is sold as its entry's own HTTP request): its body is
 * handed over as bytes, and the answer the exchange sends is kept as sent, beside the Fetch objects Hono deals in.
 * Making a Fetch request's body stream, and reading a Fetch response's back, cost more than the call's own work; the
 * routes such a call reaches read and answer through the exchange, which uses these instead.
 */
export interface InProcessCall {
  /** The request's body. */
  body?: Buffer;
  /** What the exchange answered with, once it has (a thrown error is answered by Hono, and is not here). */
  sent?: { status: number; body: string };
}
