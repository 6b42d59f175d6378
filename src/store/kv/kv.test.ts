// The key-value store (memory and Redis): get/set/delete, expiry, claims, fixed-window counters and shared
// prefixes.
import { randomUUID } from 'node:crypto';
import type net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { REDIS_URL, redisUp } from '../../../test/support/services.js';
import { startTcpServer } from '../../../test/support/tcp-server.js';
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

/** A stand-in Redis at `redis://` on a local TCP server. */
async function tcpServer(onSocket?: (socket: net.Socket) => void) {
  const server = await startTcpServer(onSocket);
  return { url: `redis://127.0.0.1:${server.port}`, close: server.close };
}

describe('Redis that cannot be reached or stops answering', () => {
  it('refused: the start-up fails naming the host and the reason', async () => {
    const free = await tcpServer(() => {});
    free.close();
    await expect(createRedisKv(free.url)).rejects.toThrow(
      `could not reach Redis at ${new URL(free.url).host}: connect ECONNREFUSED`,
    );
  });

  it('accepting connections and never answering: the start-up fails instead of waiting for good', async () => {
    const silent = await tcpServer(() => {});
    try {
      const started = performance.now();
      await expect(createRedisKv(silent.url)).rejects.toThrow(/could not reach Redis at 127\.0\.0\.1:\d+: /);
      expect(performance.now() - started).toBeLessThan(11_000);
    } finally {
      silent.close();
    }
  }, 20_000);

  it('stalling once connected: a command fails after its timeout instead of holding its caller', async () => {
    // Answers what ioredis sends while it connects (INFO for its ready check, +OK to the rest), then nothing: a
    // Redis that stalled once the connection was made.
    const info = '# Server\r\nredis_version:7.0.0\r\nloading:0\r\n';
    let stalling = false;
    const stalled = await tcpServer((socket) => {
      socket.on('data', (chunk) => {
        if (stalling) return;
        // Each command is a RESP array whose first element is its name.
        for (const [, name] of chunk.toString().matchAll(/\*\d+\r\n\$\d+\r\n([^\r]*)\r\n/g))
          socket.write(
            name?.toUpperCase() === 'INFO' ? `$${Buffer.byteLength(info)}\r\n${info}\r\n` : '+OK\r\n',
          );
      });
    });
    try {
      const kv = await createRedisKv(stalled.url);
      stalling = true;
      const started = performance.now();
      await expect(kv.get('key')).rejects.toThrow(/timed out/);
      expect(performance.now() - started).toBeLessThan(3_000);
      await kv.close().catch(() => {});
    } finally {
      stalled.close();
    }
  }, 20_000);
});
