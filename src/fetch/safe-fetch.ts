/**
 * The one safe fetcher: every URL kasir fetches on a caller's behalf, and every result file it downloads from a
 * provider, goes through `SafeFetcher.open`. http(s) only; each hop's host resolved once and checked by the address
 * rule (address-rule.ts), the connection pinned to the address that was checked (undici's connect `lookup`), so a
 * name cannot resolve to a public address for the check and to a private one for the connection; redirects
 * followed by hand, a bounded number, each target checked anew; a deadline over the whole fetch; the content type
 * checked against what the caller expects; the body counted while it streams and cut at the limit.
 *
 * Written on undici rather than taken from request-filtering-agent: that library's agent is for Node's http
 * module and checks the address after the socket connects; undici (kasir's HTTP client) lets the checked address be
 * the one connected to, with no second resolution.
 */
import type { LookupAddress } from 'node:dns';
import { type Readable, Transform, type TransformCallback } from 'node:stream';
import { rootCertificates } from 'node:tls';
import type { Dispatcher } from 'undici';
import { bareHost } from '../config/fetch.js';
import type { CallSignal } from '../http/call-signal.js';
import { Agent } from '../http/undici.js';
import { type AddressPolicy, checkDestination, type ResolvedAddress } from './address-rule.js';
import { FetchFailure } from './errors.js';

export interface FetchPolicy extends AddressPolicy {
  /** The most redirects one fetch follows. */
  maxRedirects: number;
  /** The whole fetch (every hop, and the body) must finish within this. */
  timeoutMs: number;
  /** PEM certificates trusted besides Node's bundled roots (FETCH_CA_FILE: an intranet's CA, a test's server). */
  extraCa?: readonly string[];
}

/**
 * Hosts a provider's result files come from: the provider's base-URL host (`host:port`, which the operator
 * configured, so it skips the private-address rule) and the CDN host names its adapter lists (exact names, or
 * `.suffix` for any subdomain), which are checked as any public host. A trusted fetch refuses every other host.
 */
export interface TrustedHosts {
  /** `host:port` of the configured base URL. */
  origin: string;
  /** CDN host names: `fal.media` (exactly) or `.fal.media` (any subdomain). */
  cdnHosts: readonly string[];
}

export interface FetchOptions {
  /** The body's limit in bytes: past it the fetch fails with `too_large` (before reading, when the length is sent). */
  maxBytes: number;
  /** Accepted content types: `image/*`, `audio/mpeg`, … (matched on the bare type). Empty: any. */
  accept: readonly string[];
  /** The caller's cancellation. */
  signal?: CallSignal;
  /** For a provider's result files only: the provider's hosts (see TrustedHosts). Never for a caller's URL. */
  trusted?: TrustedHosts;
  /** Request headers (a provider's download may need its key), sent to the first URL's origin only, never after a redirect elsewhere. */
  headers?: Record<string, string> /**
   * With `trusted`: a redirect may lead off the provider's hosts to any host the address rule allows (an
   * authenticated download on the API's host answered with a signed storage URL). Each hop is checked as a
   * caller's URL would be, and the headers stay with the first origin.
   */;
  redirectsLeaveTrusted?: boolean;
}

export interface FetchedBody {
  /** The URL the body came from, after redirects. */
  url: string;
  /** The bare content type (`image/png`), lower case; empty when none was sent. */
  contentType: string;
  /** The declared length, when sent. */
  contentLength: number | null;
  /** The bytes, counted as they stream: errors with FetchFailure('too_large') past the limit. */
  body: Readable;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** The bare, lower-case media type of a Content-Type header. */
function bareType(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return (value ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
}

/** True when `type` is one of `accept` (`image/*` matches any image type). */
export function typeAccepted(type: string, accept: readonly string[]): boolean {
  if (accept.length === 0) return true;
  return accept.some((a) => (a.endsWith('/*') ? type.startsWith(a.slice(0, -1)) : type === a));
}

function onTrustedHost(url: URL, trusted: TrustedHosts): { ok: boolean; origin: boolean } {
  const host = bareHost(url.hostname);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  if (`${url.hostname.toLowerCase()}:${port}` === trusted.origin) return { ok: true, origin: true };
  const ok = trusted.cdnHosts.some((h) => (h.startsWith('.') ? host.endsWith(h) : host === h));
  return { ok, origin: false };
}

/** Counts bytes as they pass and fails the stream past `max`. */
class ByteCap extends Transform {
  private seen = 0;
  constructor(private readonly max: number) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.max)
      done(new FetchFailure('too_large', `the file is larger than ${this.max} bytes`));
    else done(null, chunk);
  }
}

/** Drops a body that will not be read (its connection is not reused: one dispatcher per hop). */
function discard(body: Readable): void {
  body.on('error', () => {});
  body.destroy();
}

/** A dispatcher whose every connection goes to `pinned`, whatever name the request carries. */
function pinnedAgent(pinned: ResolvedAddress, extraCa: readonly string[] | undefined): Agent {
  const lookup = (
    _host: string,
    options: { all?: boolean },
    callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    if (options.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  };
  // A `ca` list replaces Node's roots, so extra certificates are given together with them.
  const ca = extraCa?.length ? { ca: [...rootCertificates, ...extraCa] } : {};
  return new Agent({ connect: { lookup, timeout: 10_000, ...ca }, connections: 1, pipelining: 0 });
}

export class SafeFetcher {
  constructor(private readonly policy: FetchPolicy) {}

  /** The policy's address rule for one host:port (for a browser's requests, say). */
  check(host: string, port: number) {
    return checkDestination(host, port, this.policy);
  }

  /**
   * Opens `url` and resolves once its headers are in and acceptable; the body then streams within the same
   * deadline. Rejects with a FetchFailure (or the caller's abort reason).
   */
  async open(url: string, options: FetchOptions): Promise<FetchedBody> {
    const deadline = new AbortController();
    const timer = setTimeout(
      () =>
        deadline.abort(new FetchFailure('timeout', `no complete answer within ${this.policy.timeoutMs} ms`)),
      this.policy.timeoutMs,
    );
    const onCallerAbort = () => deadline.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', onCallerAbort);
    const agents: Agent[] = [];
    const cleanup = () => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onCallerAbort);
      for (const agent of agents) void agent.destroy().catch(() => {});
    };
    try {
      let current = this.parse(url);
      const first = current;
      let trusted = options.trusted;
      for (let hop = 0; ; hop++) {
        const agent = await this.connectable(current, trusted);
        agents.push(agent);
        let answer: Dispatcher.ResponseData;
        try {
          answer = await agent.request({
            origin: current.origin,
            path: `${current.pathname}${current.search}`,
            method: 'GET',
            signal: deadline.signal,
            // The caller's headers (a provider's key) go to the origin first asked only, never to a redirect's.
            headers: { 'user-agent': 'kasir', ...(current.origin === first.origin ? options.headers : {}) },
          });
        } catch (err) {
          throw deadline.signal.aborted
            ? deadline.signal.reason
            : new FetchFailure('network', `${current.host}: ${(err as Error).message}`);
        }
        const location = answer.headers.location;
        if (REDIRECTS.has(answer.statusCode) && typeof location === 'string') {
          discard(answer.body);
          if (hop >= this.policy.maxRedirects)
            throw new FetchFailure('status', `more than ${this.policy.maxRedirects} redirects`);
          current = this.parse(new URL(location, current).href);
          if (options.redirectsLeaveTrusted) trusted = undefined;
          continue;
        }
        if (answer.statusCode < 200 || answer.statusCode >= 300) {
          discard(answer.body);
          throw new FetchFailure('status', `${current.host} answered HTTP ${answer.statusCode}`);
        }
        const contentType = bareType(answer.headers['content-type']);
        if (!typeAccepted(contentType, options.accept)) {
          discard(answer.body);
          throw new FetchFailure(
            'bad_type',
            `content type ${contentType || '(none)'} is not one of ${options.accept.join(', ')}`,
          );
        }
        const declared = Number(answer.headers['content-length']);
        const contentLength = Number.isSafeInteger(declared) && declared >= 0 ? declared : null;
        if (contentLength !== null && contentLength > options.maxBytes) {
          discard(answer.body);
          throw new FetchFailure(
            'too_large',
            `the file is ${contentLength} bytes; the limit is ${options.maxBytes}`,
          );
        }
        const capped = new ByteCap(options.maxBytes);
        answer.body.on('error', (err) =>
          capped.destroy(deadline.signal.aborted ? (deadline.signal.reason as Error) : err),
        );
        capped.on('close', cleanup);
        answer.body.pipe(capped);
        return { url: current.href, contentType, contentLength, body: capped };
      }
    } catch (err) {
      cleanup();
      throw err;
    }
  }

  /** Reads a whole (small) body into memory, within the same limits. */
  async fetchBuffer(
    url: string,
    options: FetchOptions,
  ): Promise<{ contentType: string; bytes: Buffer; url: string }> {
    const opened = await this.open(url, options);
    const chunks: Buffer[] = [];
    for await (const chunk of opened.body as AsyncIterable<Buffer>) chunks.push(chunk);
    return { contentType: opened.contentType, bytes: Buffer.concat(chunks), url: opened.url };
  }

  private parse(url: string): URL {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new FetchFailure('refused', 'not a valid URL');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw new FetchFailure('refused', `${parsed.protocol} URLs are not fetched (http and https only)`);
    if (parsed.username || parsed.password)
      throw new FetchFailure('refused', 'URLs with credentials are not fetched');
    return parsed;
  }

  /** Checks one hop's destination and returns a dispatcher pinned to the address that passed. */
  private async connectable(url: URL, trusted: TrustedHosts | undefined): Promise<Agent> {
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    let policy: AddressPolicy = this.policy;
    if (trusted) {
      const on = onTrustedHost(url, trusted);
      if (!on.ok) throw new FetchFailure('refused', `${url.host} is not one of the provider's hosts`);
      // The configured base URL's host is the operator's choice: it may be on a private network.
      if (on.origin)
        policy = {
          ...this.policy,
          allowedHosts: new Set([...this.policy.allowedHosts, trusted.origin]),
        };
    }
    const verdict = await checkDestination(url.hostname, port, policy);
    if (!verdict.allowed) throw new FetchFailure('refused', verdict.reason);
    return pinnedAgent(verdict.address, this.policy.extraCa);
  }
}

/** The `host:port` of a base URL, as TrustedHosts.origin wants it. */
export function originOf(baseUrl: string): string {
  const url = new URL(baseUrl);
  return `${url.hostname.toLowerCase()}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
}
