/** The exchange as the rails read it (PaidRequest): method, path, headers, the request id, and the body's digest on demand. */
import { createHash } from 'node:crypto';
import type { Exchange } from '../http/exchange.js';
import type { PaidRequest } from '../rails/types.js';

export /** What the rails read of the exchange; the resource URL only when a rail asks for it (a 402 names it). */
class ExchangeRequest implements PaidRequest {
  private digest: string | undefined;
  constructor(
    private readonly x: Exchange,
    private readonly publicBaseUrl: string,
    private readonly rawBody: Buffer = Buffer.alloc(0),
  ) {}
  /** RFC 9530's `sha-256=:<base64>:` of the request body, computed once when a rail binds a challenge to it. */
  get bodyDigest() {
    this.digest ??= `sha-256=:${createHash('sha256').update(this.rawBody).digest('base64')}:`;
    return this.digest;
  }
  get method() {
    return this.x.method;
  }
  get path() {
    return this.x.path;
  }
  get requestId() {
    return this.x.requestId;
  }
  get resourceUrl() {
    return `${this.publicBaseUrl}${this.x.path}`;
  }
  header(name: string): string | undefined {
    return this.x.header(name);
  }
}
