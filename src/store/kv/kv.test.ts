// The key-value store (memory and Redis): get/set/delete, expiry, claims, fixed-window counters and shared
// prefixes.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { REDIS_URL, redisUp } from '../../../test/support/services.js';
import type { KeyValue } from './kv.js';
import { createMemoryKv } from './memory.js';
import { createRedisKv } from './redis.js';

const targets: Array<[string, () => Promise<KeyValue>]> = [['memory', async () => createMemoryKv()]];
if (redisUp) targets.push(['redis', () => createRedisKv(REDIS_URL, `kasir-test:${randomUUID()}:`)]);

describe.each(targets)('key-value store (%s)', (_name, open) => {
  const opened: KeyValue[] = [];
  const kv = async () => {
    const store = await open();
    opened.push(store);
    return store;
  };
  afterAll(async () => {
    for (const s of opened) await s.close();
  });

  it('sets, gets and deletes', async () => {
    const s = await kv();
    expect(await s.get('a')).toBeNull();
    await s.set('a', '1');
    expect(await s.get('a')).toBe('1');
    await s.delete('a');
    expect(await s.get('a')).toBeNull();
  });

  it('expires keys after their ttl', async () => {
    const s = await kv();
    await s.set('short', 'x', 30);
    expect(await s.get('short')).toBe('x');
    await new Promise((r) => setTimeout(r, 60));
    expect(await s.get('short')).toBeNull();
  });

  it('claims a key once under concurrency', async () => {
    const s = await kv();
    const results = await Promise.all(Array.from({ length: 50 }, () => s.setIfAbsent('claim', 'me', 10_000)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('counts hits in a fixed window that resets', async () => {
    const s = await kv();
    const counts = await Promise.all(Array.from({ length: 20 }, () => s.hit('window', 80)));
    expect(counts.map((c) => c.count).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    for (const c of counts) expect(c.resetMs).toBeLessThanOrEqual(80);
    await new Promise((r) => setTimeout(r, 120));
    expect((await s.hit('window', 80)).count).toBe(1);
  });
});

describe.runIf(redisUp)('redis key-value store across instances', () => {
  it('shares counters between two connections with the same prefix', async () => {
    const prefix = `kasir-test:${randomUUID()}:`;
    const a = await createRedisKv(REDIS_URL, prefix);
    const b = await createRedisKv(REDIS_URL, prefix);
    await a.hit('shared', 60_000);
    expect((await b.hit('shared', 60_000)).count).toBe(2);
    await a.close();
    await b.close();
  });
});
