/** The keep-alive connection pools to upstream origins, one per origin, shared by every adapter. */
import { Pool } from '../http/undici.js';

/** One keep-alive connection pool per upstream origin, shared by every adapter that talks to that origin. */
export class UpstreamPools {
  private readonly pools = new Map<string, Pool>();

  get(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, { connect: { timeout: 10_000 } });
      this.pools.set(origin, pool);
    }
    return pool;
  }

  /** Closes every pool once its requests are done. */
  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => pool.close()));
  }
}
