// tools/dex-pairs on each database: DEX pairs from DexScreener, cache hits, empty answers and refusals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDexScreener } from '../../test/fakes/dexscreener.js';
import type { FakeJsonUpstream } from '../../test/fakes/json-upstream.js';
import { DB_TARGETS } from '../../test/support/app.js';
import { startToolKit, type ToolKit } from '../../test/support/tool-kit.js';

describe.each(DB_TARGETS)('tools/dex-pairs on %s', (db) => {
  let fake: FakeJsonUpstream;
  let kit: ToolKit;
  beforeAll(async () => {
    fake = await startFakeDexScreener();
    kit = await startToolKit(db, { DEXSCREENER_BASE_URL: fake.url });
  });
  afterAll(async () => {
    await kit.stop();
    await fake.close();
  });

  it('lists matching pairs, most liquid first; the same call again is a paid cache hit', async () => {
    const { body, res } = await kit.paid('dex-pairs', { query: 'PEPE' });
    expect(res.headers.get('x-cache')).toBe('miss');
    expect(fake.requests.at(-1)?.query.get('q')).toBe('PEPE');
    expect(body).toMatchObject({ query: 'PEPE', matched: 3, source: 'dexscreener' });
    const pairs = body.pairs as Array<Record<string, unknown>>;
    expect(pairs[0]).toEqual({
      chain: 'ethereum',
      dex: 'uniswap',
      pair: 'PEPE/WETH',
      price_usd: 0.00001027,
      liquidity_usd: 31234567.89,
      volume_24h_usd: 4123456.12,
      price_change_24h_pct: -3.41,
    });
    expect(pairs.map((p) => p.chain)).toEqual(['ethereum', 'bsc', 'solana']);
    expect(pairs[2]?.liquidity_usd).toBeNull();
    const seen = fake.requests.length;
    expect((await kit.paid('dex-pairs', { query: 'PEPE' })).res.headers.get('x-cache')).toBe('hit');
    expect(fake.requests.length).toBe(seen);
  });

  it('answers a query nothing matches with an empty list (a paid answer)', async () => {
    const { body } = await kit.paid('dex-pairs', { query: '0xdeadbeef' });
    expect(body).toMatchObject({ matched: 0, pairs: [] });
  });

  it('refuses a missing or empty query with 400 naming it; 502 naming dexscreener when it is down', async () => {
    expect((await kit.refused('dex-pairs', {}, 400)).error.param).toBe('query');
    expect((await kit.refused('dex-pairs', { query: '' }, 400)).error.param).toBe('query');
    fake.fail('down', { status: 503 });
    try {
      expect((await kit.refused('dex-pairs', { query: 'WIF' }, 502)).error.message).toContain('dexscreener');
    } finally {
      fake.fail(null);
    }
  });
});
