/** Fixed-window rate limit per client (IP, or API key when the operator gave it its own limit), shared via the KV store. */
import type { MiddlewareHandler } from 'hono';
import type { KeyValue } from '../store/kv/index.js';
import { clientIp } from './client-ip.js';
import type { AppEnv } from './env.js';
import { ApiError } from './errors.js';

export interface RateLimitOptions {
  /** Requests per minute per client, at least 1: a server with no limit does not mount this middleware. */
  perMinute: number;
  trustProxy: boolean;
  kv: KeyValue;
  /** The limit of an API key given its own, or null; looked up from the bearer token. */
  keyLimit?: (bearer: string) => Promise<{ id: string; perMinute: number } | null>;
}

const WINDOW_MS = 60_000;

export function rateLimit(opts: RateLimitOptions): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    let bucket = `rl:ip:${clientIp(c, opts.trustProxy)}`;
    let limit = opts.perMinute;
    const auth = c.req.header('authorization');
    if (opts.keyLimit && auth?.startsWith('Bearer ')) {
      const own = await opts.keyLimit(auth.slice(7).trim());
      if (own) {
        bucket = `rl:key:${own.id}`;
        limit = own.perMinute;
      }
    }
    const { count, resetMs } = await opts.kv.hit(bucket, WINDOW_MS);
    const resetSeconds = Math.max(1, Math.ceil(resetMs / 1000));
    c.header('ratelimit-limit', String(limit));
    c.header('ratelimit-remaining', String(Math.max(0, limit - count)));
    c.header('ratelimit-reset', String(resetSeconds));
    if (count > limit) {
      throw new ApiError(
        'rate_limited',
        `rate limit of ${limit} requests per minute exceeded; retry in ${resetSeconds} s`,
        { limit, retryAfterSeconds: resetSeconds },
        { 'retry-after': String(resetSeconds) },
      );
    }
    return next();
  };
}
