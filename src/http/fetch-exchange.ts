/** The exchange over Hono's Fetch-API request and response: what serves `app.request()` in tests. */
import type { Context } from 'hono';
import { readFetchBody } from './body.js';
import type { AppEnv } from './env.js';
import type { Exchange } from './exchange.js';
import { type SseSink, webSse } from './sse.js';

class FetchExchange implements Exchange {
  constructor(private readonly c: Context<AppEnv>) {}

  get method(): string {
    return this.c.req.method;
  }

  get path(): string {
    return this.c.req.path;
  }

  get requestId(): string {
    return this.c.get('requestId');
  }

  header(name: string): string | undefined {
    return this.c.req.header(name);
  }

  readBody(limit: number): Promise<Buffer> {
    return readFetchBody(this.c.req.raw, limit, this.c.env?.inProcess?.body);
  }

  send(status: number, body: string, headers: Record<string, string>): Response {
    const call = this.c.env?.inProcess;
    if (call) call.sent = { status, body };
    return this.c.body(body, status as 200, headers);
  }

  openSse(headers: Record<string, string>): SseSink {
    return webSse(headers, this.requestId);
  }

  onHangUp(listener: () => void): void {
    this.c.req.raw.signal?.addEventListener('abort', listener, { once: true });
  }
}

export function fetchExchange(c: Context<AppEnv>): Exchange {
  return new FetchExchange(c);
}
