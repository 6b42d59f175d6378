// RateLimiter: each client counted against its limit, and requests let through while its store fails or
// stalls.
import { describe, expect, it } from 'vitest';
import type { KeyValue } from '../store/kv/kv.js';
import { createMemoryKv } from '../store/kv/memory.js';
import { RateLimiter } from './rate-limit.js';

describe('RateLimiter', () => {
  it('counts each client against its limit and refuses past it', async () => {
    const limiter = new RateLimiter({ perMinute: 2, trustProxy: false, kv: createMemoryKv() });
    const verdicts = [];
    for (let i = 0; i < 3; i++) verdicts.push(await limiter.hit('10.0.0.1', undefined));
    expect(verdicts.map((v) => v.refusal === null)).toEqual([true, true, false]);
    expect(verdicts[0]?.headers['ratelimit-remaining']).toBe('1');
  });

  it('lets requests through uncounted, and says so once, while its store fails or stalls', async () => {
    const warned: unknown[] = [];
    const log = { warn: (...args: unknown[]) => warned.push(args) } as never;
    const down: KeyValue = {
      ...createMemoryKv(),
      hit: async () => {
        throw new Error('connect ECONNREFUSED');
      },
    };
    const limiter = new RateLimiter({ perMinute: 1, trustProxy: false, kv: down, log });
    for (let i = 0; i < 3; i++)
      expect(await limiter.hit('10.0.0.2', undefined)).toEqual({ headers: {}, refusal: null });
    expect(warned).toHaveLength(1);
    const stalled: KeyValue = { ...createMemoryKv(), hit: () => new Promise(() => {}) };
    const slow = new RateLimiter({ perMinute: 1, trustProxy: false, kv: stalled });
    const started = Date.now();
    expect(await slow.hit('10.0.0.3', undefined)).toEqual({ headers: {}, refusal: null });
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
