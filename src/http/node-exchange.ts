/** The exchange over Node's request and response: no Fetch-API objects, which cost several times more on Node. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { readIncoming } from './body.js';
import type { Exchange } from './exchange.js';
import { Listeners } from './listeners.js';
import { nodeSse, type SseSink } from './sse.js';

class NodeExchange implements Exchange {
  private hangUps: Listeners | undefined = undefined;
  private watching = false;

  constructor(
    private readonly incoming: IncomingMessage,
    private readonly outgoing: ServerResponse,
    readonly path: string,
    readonly requestId: string,
    /** Called once the response has closed, finished or not. */
    private readonly closed?: () => void,
  ) {
    if (closed) this.watchClose();
  }

  get method(): string {
    return this.incoming.method ?? 'GET';
  }

  header(name: string): string | undefined {
    // Node joins repeated headers with ', ' as Fetch does, except set-cookie (an array), never sent to a server.
    const value = this.incoming.headers[name];
    return typeof value === 'string' ? value : value?.join(', ');
  }

  readBody(limit: number): Promise<Buffer> {
    return readIncoming(this.incoming, limit);
  }

  send(status: number, body: string, headers: Record<string, string>): Response {
    headers['content-length'] = String(Buffer.byteLength(body));
    headers['x-request-id'] = this.requestId;
    // One writeHead with a plain object: Node's own header store is skipped, and the head leaves with the body.
    this.outgoing.writeHead(status, headers);
    this.outgoing.end(body);
    return RESPONSE_ALREADY_SENT;
  }

  openSse(headers: Record<string, string>): SseSink {
    return nodeSse(this.outgoing, headers, this.requestId, (listener) => this.onHangUp(listener));
  }

  onHangUp(listener: () => void): void {
    this.hangUps ??= new Listeners();
    this.hangUps.add(listener);
    this.watchClose();
  }

  /** One 'close' listener per response, whatever waits for it (cheaper than the request's AbortSignal). */
  private watchClose(): void {
    if (this.watching) return;
    this.watching = true;
    this.outgoing.on('close', this.onClose);
  }

  private readonly onClose = (): void => {
    // The response closing before it finished is the caller hanging up.
    if (this.hangUps && !this.outgoing.writableFinished) this.hangUps.callAll();
    // Nothing waits any more: a closure here holds the whole call (see SinkState.release in sse.ts).
    this.hangUps?.clear();
    this.closed?.();
  };
}

/** The exchange of a Node request; `closed` is called once the response has closed, finished or not. */
export function nodeExchange(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  path: string,
  requestId: string,
  closed?: () => void,
): Exchange {
  return new NodeExchange(incoming, outgoing, path, requestId, closed);
}
