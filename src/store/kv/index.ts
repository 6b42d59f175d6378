/** Picks the key-value store from the configuration. */
import type { KeyValue } from './kv.js';
import { createMemoryKv } from './memory.js';
import { createRedisKv } from './redis.js';

export type { KeyValue, WindowCount } from './kv.js';

export function openKv(redisUrl: string | undefined): Promise<KeyValue> {
  return redisUrl ? createRedisKv(redisUrl) : Promise.resolve(createMemoryKv());
}
