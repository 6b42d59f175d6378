/**
 * A fake JSON upstream: a real HTTP server on 127.0.0.1 answering a provider's routes (each provider's fake, e.g.
 * frankfurter.ts, lists its routes and answers in that provider's wire format), with failure modes that apply to
 * the next requests:
 *   fake.fail('down')          5xx with the provider's own error body
 *   fake.fail('rate-limited')  429 with Retry-After (seconds, default 1)
 *   fake.fail('slow')          answers after `slowMs` (longer than the tests' TOOL_TIMEOUT_MS)
 *   fake.fail('malformed')     200 with a body that is not JSON
 *   fake.fail(null)            back to normal
 * Every request is recorded (method, path, query, headers, parsed body).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { closeServer, listen } from './http.js';

export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface FakeAnswer {
  status?: number;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is (instead of `body`). */
  raw?: string;
  headers?: Record<string, string>;
}

export interface FakeRoute {
  method: 'GET' | 'POST';
  /** Matched against the path (without the query). */
  path: RegExp;
  answer(req: FakeRequest, match: RegExpMatchArray): FakeAnswer | Promise<FakeAnswer>;
}

export type FailureMode = 'down' | 'rate-limited' | 'slow' | 'malformed';

export interface FakeJsonUpstream {
  /** Base URL, including `basePath`. */
  url: string;
  requests: FakeRequest[];
  fail(mode: FailureMode | null, options?: { retryAfter?: string; status?: number }): void;
  close(): Promise<void>;
}

export interface FakeJsonOptions {
  /** Path prefix the provider's API lives under (`/v1`, `/api/v3`); part of `url`. */
  basePath?: string;
  routes: FakeRoute[];
  /** The provider's error body for a status. */
  errorBody(status: number, message: string): unknown;
  /** How long a 'slow' answer takes (default 2 s). */
  slowMs?: number;
  /** Checked on each request: a refusal (e.g. a missing key → 401) answers instead of the route. */
  authorize?(req: FakeRequest): FakeAnswer | undefined;
}

export async function startFakeJsonUpstream(options: FakeJsonOptions): Promise<FakeJsonUpstream> {
  const basePath = options.basePath ?? '';
  const requests: FakeRequest[] = [];
  let failure: { mode: FailureMode; retryAfter: string; status: number } | null = null;
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://fake');
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    const path = url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) : url.pathname;
    const request: FakeRequest = {
      method: req.method ?? 'GET',
      path,
      query: url.searchParams,
      headers: req.headers,
      body,
    };
    requests.push(request);
    const send = (a: FakeAnswer) => {
      const payload = a.raw ?? JSON.stringify(a.body ?? null);
      res.writeHead(a.status ?? 200, {
        'content-type': a.raw !== undefined ? 'text/html' : 'application/json',
        ...a.headers,
      });
      res.end(payload);
    };
    if (failure?.mode === 'down')
      return send({
        status: failure.status,
        body: options.errorBody(failure.status, 'Internal Server Error'),
      });
    if (failure?.mode === 'rate-limited') {
      return send({
        status: 429,
        body: options.errorBody(429, 'Too Many Requests'),
        headers: { 'retry-after': failure.retryAfter },
      });
    }
    if (failure?.mode === 'malformed')
      return send({ status: 200, raw: '<html><body>502 Bad Gateway</body></html>' });
    if (failure?.mode === 'slow') await sleep(options.slowMs ?? 2000);
    const refused = options.authorize?.(request);
    if (refused) return send(refused);
    for (const route of options.routes) {
      const match = route.method === request.method ? path.match(route.path) : null;
      if (match) {
        try {
          return send(await route.answer(request, match));
        } catch (err) {
          return send({ status: 500, body: options.errorBody(500, String(err)) });
        }
      }
    }
    send({ status: 404, body: options.errorBody(404, 'Not Found') });
  });
  const base = await listen(server);
  return {
    url: `${base}${basePath}`,
    requests,
    fail(mode, o = {}) {
      failure = mode ? { mode, retryAfter: o.retryAfter ?? '1', status: o.status ?? 500 } : null;
    },
    close: () => closeServer(server),
  };
}
