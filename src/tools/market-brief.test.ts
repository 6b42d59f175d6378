// tools/market-brief on each database: prices, gas and DeFi in one call, degraded sections and whole
// failures.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeCoinGecko } from '../../test/fakes/coingecko.js';
import { startFakeDefiLlama, startFakeDefiLlamaCoins } from '../../test/fakes/defillama.js';
import { type FakeRpcNode, startFakeRpcNode } from '../../test/fakes/json-rpc-node.js';
import type { FakeJsonUpstream } from '../../test/fakes/json-upstream.js';
import { DB_TARGETS } from '../../test/support/app.js';
import { startToolKit, type ToolKit } from '../../test/support/tool-kit.js';

describe.each(DB_TARGETS)('tools/market-brief on %s', (db) => {
  let gecko: FakeJsonUpstream;
  let coins: FakeJsonUpstream;
  let llama: FakeJsonUpstream;
  let node: FakeRpcNode;
  let kit: ToolKit;
  beforeAll(async () => {
    [gecko, coins, llama, node] = await Promise.all([
      startFakeCoinGecko(),
      startFakeDefiLlamaCoins(),
      startFakeDefiLlama(),
      startFakeRpcNode(),
    ]);
    kit = await startToolKit(db, {
      COINGECKO_BASE_URL: gecko.url,
      DEFILLAMA_COINS_BASE_URL: coins.url,
      DEFILLAMA_BASE_URL: llama.url,
      RPC_URLS: `ethereum=${node.url},base=${node.url}`,
    });
  });
  afterAll(async () => {
    await kit.stop();
    await Promise.all([gecko, coins, llama, node].map((f) => f.close()));
  });

  it('answers prices, gas and DeFi in one call; the same call again is a paid cache hit', async () => {
    const { body, res } = await kit.paid('market-brief', { symbols: 'btc,SOL', protocol: 'aave' });
    expect(res.headers.get('x-cache')).toBe('miss');
    expect(Date.parse(String(body.as_of))).toBeGreaterThan(Date.now() - 60_000);
    expect(body.prices).toEqual({ BTC: 96042.1, SOL: 187.23 });
    expect(body.gas).toEqual({
      chain: 'ethereum',
      gas_price_gwei: 1.2,
      native_symbol: 'ETH',
      transfer_cost_usd: 0.0832298,
    });
    expect(body.defi).toEqual({
      total_defi_tvl_usd: 84217283945.7,
      top_chains: [
        { chain: 'Ethereum', tvl_usd: 63123456789.1 },
        { chain: 'Solana', tvl_usd: 9123456789.4 },
        { chain: 'BSC', tvl_usd: 5523456789.2 },
        { chain: 'Base', tvl_usd: 4123456789 },
        { chain: 'Arbitrum', tvl_usd: 2323456789 },
      ],
      protocol: { name: 'Aave', tvl_usd: 23000000000.75, change_1d_pct: -2.1277 },
    });
    expect(body.degraded).toEqual([]);
    const seen = llama.requests.length;
    expect(
      (await kit.paid('market-brief', { symbols: 'btc,SOL', protocol: 'aave' })).res.headers.get('x-cache'),
    ).toBe('hit');
    expect(llama.requests.length).toBe(seen);
  });

  it('answers a failed section as null, names it in degraded, is charged, and is not cached', async () => {
    llama.fail('down');
    try {
      const { body, res } = await kit.paid('market-brief', { chain: 'base' });
      expect(body).toMatchObject({ prices: { BTC: 96042.1, ETH: 3302.77 }, defi: null, degraded: ['defi'] });
      expect(body.gas).toMatchObject({ chain: 'base' });
      expect(res.headers.get('x-cache')).toBe('miss');
    } finally {
      llama.fail(null);
    }
    const healed = await kit.paid('market-brief', { chain: 'base' });
    expect(healed.res.headers.get('x-cache')).toBe('miss');
    expect(healed.body.degraded).toEqual([]);
  });

  it('fails uncharged when every section fails; refuses a chain without gas pricing with 400', async () => {
    for (const f of [gecko, coins, llama, node]) f.fail('down');
    try {
      await kit.refused('market-brief', { symbols: 'ETH', chain: 'ethereum' }, 502);
    } finally {
      for (const f of [gecko, coins, llama, node]) f.fail(null);
    }
    expect((await kit.refused('market-brief', { chain: 'solana' }, 400)).error.param).toBe('chain');
  });
});
