/** Fixed-window rate limit per client (IP, or API key when the operator gave it its own limit), shared via the KV store. */
import type { ServerResponse } from 'node:http';
import type { MiddlewareHandler } from 'hono';
import type { KeyValue } from '../store/kv/index.js';
import { within } from '../within.js';
import { clientIp } from './client-ip.js';
import type { AppEnv } from './env.js';
import { ApiError } from './errors.js';
import type { Logger } from './logger.js';

export interface RateLimitOptions {
  /** Requests per minute per client, at least 1: a server with no limit has no limiter at all. */
  perMinute: number;
  trustProxy: boolean;
  kv: KeyValue;
  /** The limit of an API key given its own, or null; looked up from the bearer token. */
  keyLimit?: (bearer: string) => Promise<{ id: string; perMinute: number } | null>;
  /** Where a store that cannot count (Redis down) is reported, at most every STORE_REPORT_MS. */
  log?: Logger;
}

/** What one request's hit says: the headers every answer carries, and the refusal when over the limit. */
export interface RateVerdict {
  headers: Record<string, string>;
  refusal: ApiError | null;
}

const WINDOW_MS = 60_000;
/** How long a request waits for its count before it goes through uncounted (a store that is down or stalled). */
const STORE_WAIT_MS = 250;
const STORE_REPORT_MS = 10_000;

export class RateLimiter {
  private reportedAt = 0;
  constructor(readonly opts: RateLimitOptions) {}

  /**
   * Limits degrade, calls do not: when the store cannot count (Redis down, restarting, stalled), the request goes
   * through uncounted and without RateLimit headers, and that is logged at warn (at most every 10 s).
   */
  private uncounted(err: unknown): RateVerdict {
    const now = Date.now();
    if (now - this.reportedAt >= STORE_REPORT_MS) {
      this.reportedAt = now;
      this.opts.log?.warn(
        { err, store: this.opts.kv.kind },
        'rate limits are off while their store cannot count; requests go through unlimited',
      );
    }
    return { headers: {}, refusal: null };
  }

  /** Counts one request of the client at `ip` carrying `authorization`. */
  async hit(ip: string, authorization: string | undefined): Promise<RateVerdict> {
    let bucket = `rl:ip:${ip}`;
    let limit = this.opts.perMinute;
    if (this.opts.keyLimit && authorization?.startsWith('Bearer ')) {
      const own = await this.opts.keyLimit(authorization.slice(7).trim());
      if (own) {
        bucket = `rl:key:${own.id}`;
        limit = own.perMinute;
      }
    }
    let counted: { count: number; resetMs: number };
    try {
      counted = await within(this.opts.kv.hit(bucket, WINDOW_MS), STORE_WAIT_MS);
    } catch (err) {
      return this.uncounted(err);
    }
    const { count, resetMs } = counted;
    const resetSeconds = Math.max(1, Math.ceil(resetMs / 1000));
    const headers = {
      'ratelimit-limit': String(limit),
      'ratelimit-remaining': String(Math.max(0, limit - count)),
      'ratelimit-reset': String(resetSeconds),
    };
    const refusal =
      count > limit
        ? new ApiError(
            'rate_limited',
            `rate limit of ${limit} requests per minute exceeded; retry in ${resetSeconds} s`,
            { limit, retryAfterSeconds: resetSeconds },
            { 'retry-after': String(resetSeconds) },
          )
        : null;
    return { headers, refusal };
  }
}

/**
 * Puts the verdict's headers on the Node response, which merges them into whatever is written later: a handler
 * that writes to it directly would otherwise drop them.
 */
export function setVerdictHeaders(outgoing: ServerResponse, verdict: RateVerdict): void {
  for (const [name, value] of Object.entries(verdict.headers)) outgoing.setHeader(name, value);
}

export function rateLimit(limiter: RateLimiter): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const verdict = await limiter.hit(clientIp(c, limiter.opts.trustProxy), c.req.header('authorization'));
    const outgoing = c.env?.outgoing;
    if (outgoing) setVerdictHeaders(outgoing, verdict);
    else for (const [name, value] of Object.entries(verdict.headers)) c.header(name, value);
    if (verdict.refusal) throw verdict.refusal;
    return next();
  };
}
