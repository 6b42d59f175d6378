/**
 * The one JSON client of the data tools: a request to a named upstream through the guarded agent and that
 * upstream's gate, with the tool timeout, and every failure turned into an UpstreamError that names the upstream
 * (a 429 also pauses the upstream for its Retry-After).
 */
import type { CallSignal } from '../../http/call-signal.js';
import { UpstreamError } from '../../http/upstream-error.js';
import { classifyStatus, redact } from '../../providers/upstream-refusal.js';
import type { ToolHttp } from './tool-http.js';

/** The largest answer read (SEC companyfacts of the largest filers are tens of MB). */
const ANSWER_LIMIT = 48 * 1024 * 1024;

export type Query = Record<string, string | number | boolean | undefined>;

export interface JsonRequest {
  method?: 'GET' | 'POST';
  /** Appended to the base URL; or a full URL (RDAP links, EDGAR archives) on the same upstream. */
  path: string;
  query?: Query;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface UpstreamOptions {
  /** Headers sent with every request (keys, the User-Agent SEC requires). */
  headers?: Record<string, string>;
  /** Our key for this upstream, removed from anything that could reach a caller. */
  secret?: string | undefined;
  /** The gate to use; defaults to the upstream's name (several base URLs of one provider can share one). */
  gate?: string;
}

export class JsonUpstream {
  constructor(
    readonly name: string,
    readonly baseUrl: string,
    private readonly http: ToolHttp,
    private readonly options: UpstreamOptions = {},
  ) {}

  get<T = unknown>(path: string, query: Query | undefined, signal: CallSignal): Promise<T> {
    return this.request<T>({ path, ...(query ? { query } : {}) }, signal);
  }

  post<T = unknown>(path: string, body: unknown, signal: CallSignal): Promise<T> {
    return this.request<T>({ method: 'POST', path, body }, signal);
  }

  /** The URL a request goes to. */
  urlOf(path: string, query?: Query): URL {
    const url = /^https?:\/\//.test(path) ? new URL(path) : new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url;
  }

  async request<T = unknown>(req: JsonRequest, signal: CallSignal): Promise<T> {
    const gate = this.http.gate(this.options.gate ?? this.name);
    const paused = gate.pausedFor();
    if (paused > 0) {
      throw new UpstreamError(
        'upstream',
        `${this.name} is rate-limiting kasir; it is left alone for ${Math.ceil(paused / 1000)} s more`,
        { status: 429, beforeFirstByte: true },
      );
    }
    return gate.run(() => this.send<T>(req, signal));
  }

  private async send<T>(req: JsonRequest, signal: CallSignal): Promise<T> {
    let url: URL;
    try {
      url = this.urlOf(req.path, req.query);
      this.http.guard.checkUrl(url);
    } catch (err) {
      throw this.failure(err, signal);
    }
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': 'kasir',
      ...this.options.headers,
      ...req.headers,
    };
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    let status: number;
    let text: string;
    let retryAfter: string | undefined;
    try {
      const res = await this.http.agent.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: req.method ?? 'GET',
        headers,
        ...(req.body !== undefined ? { body: JSON.stringify(req.body) } : {}),
        headersTimeout: this.http.timeoutMs,
        bodyTimeout: this.http.timeoutMs,
        signal: signal as AbortSignal,
      });
      status = res.statusCode;
      const header = res.headers['retry-after'];
      retryAfter = Array.isArray(header) ? header[0] : header;
      text = await readCapped(res.body, status >= 200 && status < 300 ? ANSWER_LIMIT : undefined);
    } catch (err) {
      throw this.failure(err, signal);
    }
    if (status === 429) {
      const ms = this.http.gate(this.options.gate ?? this.name).pause(retryAfter);
      throw new UpstreamError(
        'upstream',
        `${this.name} is rate-limiting kasir (HTTP 429); it is left alone for ${Math.ceil(ms / 1000)} s`,
        { status, beforeFirstByte: true },
      );
    }
    if (status < 200 || status >= 300) {
      throw classifyStatus({ provider: this.name, status, body: text, secret: this.options.secret });
    }
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new UpstreamError('upstream', `${this.name} answered with a body that is not JSON`, {
        status,
        beforeFirstByte: true,
      });
    }
  }

  /** What to throw for an error raised while talking to the upstream (the caller's abort passes through). */
  private failure(err: unknown, signal: CallSignal): unknown {
    if (err instanceof UpstreamError) return err;
    if (signal.aborted) return signal.reason;
    const code = (err as { code?: unknown } | null)?.code;
    if (
      code === 'UND_ERR_HEADERS_TIMEOUT' ||
      code === 'UND_ERR_BODY_TIMEOUT' ||
      code === 'UND_ERR_CONNECT_TIMEOUT'
    ) {
      return new UpstreamError('timeout', `${this.name} did not answer within ${this.http.timeoutMs} ms`, {
        beforeFirstByte: true,
      });
    }
    const message = err instanceof Error ? err.message : String(err);
    return new UpstreamError(
      'upstream',
      redact(`connection to ${this.name} failed: ${message}`, this.options.secret),
      { beforeFirstByte: true },
    );
  }
}

/** The most of an error body kept (only its message is of use). */
const ERROR_LIMIT = 64 * 1024;

/** Reads a body as text: an answer over `limit` bytes is refused; without a limit (an error body) it is cut short. */
async function readCapped(body: AsyncIterable<Buffer>, limit: number | undefined): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (limit !== undefined && size > limit)
      throw new Error(`answer larger than ${Math.round(limit / 1024)} KiB`);
    chunks.push(chunk);
    if (limit === undefined && size > ERROR_LIMIT) break;
  }
  return Buffer.concat(chunks).toString('utf8');
}
