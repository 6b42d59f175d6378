/** Picks the key-value store from the configuration. */
import type { KeyValue } from './kv.js';
import { createMemoryKv } from './memory.js';

export type { KeyValue, WindowCount } from './kv.js';

export async function openKv(redisUrl: string | undefined): Promise<KeyValue> {
  if (!redisUrl) return createMemoryKv();
  // ioredis (about 5 MB resident once loaded) is imported only when Redis is configured.
  const { createRedisKv } = await import('./redis.js');
  return createRedisKv(redisUrl);
}
