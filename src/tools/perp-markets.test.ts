// tools/perp-markets on each database: Hyperliquid perpetual markets with funding, and refusals and failures.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeHyperliquid } from '../../test/fakes/hyperliquid.js';
import type { FakeJsonUpstream } from '../../test/fakes/json-upstream.js';
import { DB_TARGETS } from '../../test/support/app.js';
import { startToolKit, type ToolKit } from '../../test/support/tool-kit.js';

describe.each(DB_TARGETS)('tools/perp-markets on %s', (db) => {
  let fake: FakeJsonUpstream;
  let kit: ToolKit;
  beforeAll(async () => {
    fake = await startFakeHyperliquid();
    kit = await startToolKit(db, { HYPERLIQUID_BASE_URL: fake.url });
  });
  afterAll(async () => {
    await kit.stop();
    await fake.close();
  });

  it('lists listed markets by volume with funding annualised; the same call again is a paid cache hit', async () => {
    const { body, res } = await kit.paid('perp-markets', { limit: 3 });
    expect(res.headers.get('x-cache')).toBe('miss');
    expect(fake.requests.at(-1)?.body).toEqual({ type: 'metaAndAssetCtxs' });
    expect(body).toMatchObject({
      venue: 'hyperliquid',
      sort: 'volume',
      count: 3,
      total_markets: 4,
      not_found: [],
    });
    expect(body.funding_interval).toBe('1h');
    const markets = body.markets as Array<Record<string, unknown>>;
    expect(markets.map((m) => m.coin)).toEqual(['BTC', 'ETH', 'SOL']);
    expect(markets[0]).toEqual({
      coin: 'BTC',
      mark_price: 96042,
      oracle_price: 96010,
      change_24h_pct: 0.9693,
      funding_rate_hourly: 0.0000125,
      funding_apr_pct: 10.95,
      open_interest: 31234.56782,
      open_interest_usd: 2999830362.57,
      volume_24h_usd: 2312345678.123,
      premium: 0.00031234,
      max_leverage: 40,
    });
    const seen = fake.requests.length;
    const again = await kit.paid('perp-markets', { limit: 3 });
    expect(again.res.headers.get('x-cache')).toBe('hit');
    expect(fake.requests.length).toBe(seen);
  });

  it('picks coins case-insensitively, sorts by funding, and names the coins it does not know', async () => {
    const { body } = await kit.paid('perp-markets', { coins: 'sol,kpepe,DOGE', sort: 'funding' });
    expect((body.markets as Array<{ coin: string }>).map((m) => m.coin)).toEqual(['kPEPE', 'SOL']);
    expect(body.not_found).toEqual(['DOGE']);
    expect((body.markets as Array<{ premium: unknown }>)[0]?.premium).toBeNull();
  });

  it('refuses bad input with 400 naming the field; nothing charged', async () => {
    expect((await kit.refused('perp-markets', { limit: 51 }, 400)).error.param).toBe('limit');
    expect((await kit.refused('perp-markets', { sort: 'price' }, 400)).error.param).toBe('sort');
    const many = Array.from({ length: 21 }, (_, i) => `C${i}`).join(',');
    expect((await kit.refused('perp-markets', { coins: many }, 400)).error.param).toBe('coins');
  });

  it('answers 502 naming hyperliquid when it is down; nothing charged', async () => {
    fake.fail('down');
    try {
      expect((await kit.refused('perp-markets', { limit: 7 }, 502)).error.message).toContain('hyperliquid');
    } finally {
      fake.fail(null);
    }
  });
});
