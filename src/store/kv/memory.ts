/** In-process key-value store: for one instance. Expired entries are dropped lazily and by a periodic sweep. */
import type { KeyValue, WindowCount } from './kv.js';

interface Entry {
  value: string;
  expiresAt: number;
}

export function createMemoryKv(now: () => number = Date.now): KeyValue {
  const entries = new Map<string, Entry>();
  const live = (key: string): Entry | undefined => {
    const e = entries.get(key);
    if (e && e.expiresAt <= now()) {
      entries.delete(key);
      return undefined;
    }
    return e;
  };
  const sweep = setInterval(() => {
    const t = now();
    for (const [k, e] of entries) if (e.expiresAt <= t) entries.delete(k);
  }, 30_000);
  sweep.unref();

  return {
    kind: 'memory',
    async get(key) {
      return live(key)?.value ?? null;
    },
    async set(key, value, ttlMs) {
      entries.set(key, { value, expiresAt: ttlMs === undefined ? Number.POSITIVE_INFINITY : now() + ttlMs });
    },
    async setIfAbsent(key, value, ttlMs) {
      if (live(key)) return false;
      entries.set(key, { value, expiresAt: now() + ttlMs });
      return true;
    },
    async delete(key) {
      entries.delete(key);
    },
    async hit(key, windowMs): Promise<WindowCount> {
      const t = now();
      const e = live(key);
      if (!e) {
        entries.set(key, { value: '1', expiresAt: t + windowMs });
        return { count: 1, resetMs: windowMs };
      }
      const count = Number(e.value) + 1;
      e.value = String(count);
      return { count, resetMs: e.expiresAt - t };
    },
    async close() {
      clearInterval(sweep);
      entries.clear();
    },
  };
}
