/** Redis key-value store: shared by every kasir instance that points at the same Redis. */
import { Redis } from 'ioredis';
import type { KeyValue } from './kv.js';

// INCR and set the expiry on the first hit in one atomic step, then report the remaining window.
const HIT_SCRIPT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {n, ttl}`;

export async function createRedisKv(url: string, prefix = 'kasir:'): Promise<KeyValue> {
  const redis = new Redis(url, { keyPrefix: prefix, lazyConnect: true, maxRetriesPerRequest: 2 });
  // While Redis is away ioredis reconnects by itself and each command fails on its own (callers decide what that
  // means: the rate limiter lets calls through uncounted); its connection errors are not reported twice.
  redis.on('error', () => {});
  await redis.connect();
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
