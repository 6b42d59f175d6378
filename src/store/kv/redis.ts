/** Redis key-value store: shared by every kasir instance that points at the same Redis. */
import { Redis } from 'ioredis';
import { within } from '../../within.js';
import type { KeyValue } from './kv.js';

// INCR and set the expiry on the first hit in one atomic step, then report the remaining window.
const HIT_SCRIPT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {n, ttl}`;

/** How long the start-up waits for Redis to be ready. */
const CONNECT_TIMEOUT_MS = 10_000;
/**
 * How long a command waits for its answer. ioredis waits without end by default, so a Redis that stalls (or a
 * host that accepts connections and never answers) held every command: a paid tool's cache lookup and /healthz
 * hung with it. Past this a command fails: the tool cache misses, /healthz reports the store, and the rate limiter
 * (which waits less, see rate-limit.ts) lets calls through uncounted.
 */
const COMMAND_TIMEOUT_MS = 1_000;

export async function createRedisKv(url: string, prefix = 'kasir:'): Promise<KeyValue> {
  const redis = new Redis(url, {
    keyPrefix: prefix,
    lazyConnect: true,
    maxRetriesPerRequest: 2,
    connectTimeout: CONNECT_TIMEOUT_MS,
    commandTimeout: COMMAND_TIMEOUT_MS,
  });
  // While Redis is away ioredis reconnects by itself and each command fails on its own (callers decide what that
  // means: the rate limiter lets calls through uncounted); its connection errors are not reported twice.
  let lastError: Error | undefined;
  redis.on('error', (err: Error) => {
    lastError = err;
  });
  await ready(redis, url, () => lastError);
  redis.defineCommand('kasirHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  const hit = (
    redis as unknown as { kasirHit(key: string, ms: number): Promise<[number, number]> }
  ).kasirHit.bind(redis);
  return {
    kind: 'redis',
    get: (key) => redis.get(key),
    async set(key, value, ttlMs) {
      if (ttlMs === undefined) await redis.set(key, value);
      else await redis.set(key, value, 'PX', ttlMs);
    },
    async setIfAbsent(key, value, ttlMs) {
      return (await redis.set(key, value, 'PX', ttlMs, 'NX')) === 'OK';
    },
    async delete(key) {
      await redis.del(key);
    },
    async hit(key, windowMs) {
      const [count, resetMs] = await hit(key, windowMs);
      return { count, resetMs };
    },
    async close() {
      await redis.quit();
    },
  };
}

/**
 * Connects, or fails saying why: ioredis's own promise never settles when the host accepts the connection and
 * never answers its ready check, and when it is refused it says only "Connection is closed."
 */
async function ready(redis: Redis, url: string, lastError: () => Error | undefined): Promise<void> {
  const { hostname, port } = new URL(url);
  try {
    await within(redis.connect(), CONNECT_TIMEOUT_MS);
  } catch (err) {
    redis.disconnect();
    const why = lastError()?.message ?? (err as Error).message;
    throw new Error(`could not reach Redis at ${hostname}:${port || 6379}: ${why}`);
  }
}
