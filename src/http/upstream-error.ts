/**
 * An upstream call's failure, classified (bad request, upstream fault, timeout, not configured): thrown by the
 * providers and by anything else that calls out on a caller's behalf (the tools' upstreams, remote images), and
 * mapped by the checkout to a status. Lives here, beside the call signal, so every layer below providers may take it.
 */

/** Why an upstream call failed; the checkout maps each kind to a status and voids the payment. */
export type UpstreamFailureKind =
  /** The upstream refused the input (a 4xx caused by the request): 400 to the caller. */
  | 'bad_request'
  /** The upstream failed (5xx, bad response, connection error, died mid-stream): 502. */
  | 'upstream'
  /** No answer in time: 504. */
  | 'timeout'
  /** The provider is not configured (no key / base URL): 503. */
  | 'not_configured';

export class UpstreamError extends Error {
  constructor(
    readonly kind: UpstreamFailureKind,
    message: string,
    readonly options: {
      /** The upstream's HTTP status, when there was one. */
      status?: number;
      /** True when nothing had been received yet, so a retry or a fallback is still safe. */
      beforeFirstByte?: boolean;
      /** The upstream's own error message, safe to show the caller (never contains our key). */
      upstreamMessage?: string;
      /** How long the upstream asked to wait before trying again (its `Retry-After`), in ms. */
      retryAfterMs?: number;
    } = {},
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
  get retryable(): boolean {
    return (this.kind === 'upstream' || this.kind === 'timeout') && this.options.beforeFirstByte !== false;
  }
}
