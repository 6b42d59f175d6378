// tools/token-price on each database: prices through CoinGecko, DefiLlama as the fallback, and failures.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeCoinGecko } from '../../test/fakes/coingecko.js';
import { startFakeDefiLlamaCoins } from '../../test/fakes/defillama.js';
import type { FakeJsonUpstream } from '../../test/fakes/json-upstream.js';
import { DB_TARGETS } from '../../test/support/app.js';
import { startToolKit, type ToolKit } from '../../test/support/tool-kit.js';

describe.each(DB_TARGETS)('tools/token-price on %s', (db) => {
  let gecko: FakeJsonUpstream;
  let llama: FakeJsonUpstream;
  let kit: ToolKit;
  beforeAll(async () => {
    gecko = await startFakeCoinGecko();
    llama = await startFakeDefiLlamaCoins();
    kit = await startToolKit(db, {
      COINGECKO_BASE_URL: gecko.url,
      COINGECKO_API_KEY: 'CG-demo-key',
      DEFILLAMA_COINS_BASE_URL: llama.url,
    });
  });
  afterAll(async () => {
    await kit.stop();
    await gecko.close();
    await llama.close();
  });

  it('prices symbols through CoinGecko with the demo key; the same call again is a paid cache hit', async () => {
    const { body, res } = await kit.paid('token-price', { symbols: 'btc, ETH,NOPE' });
    expect(res.headers.get('x-cache')).toBe('miss');
    const sent = gecko.requests.at(-1);
    expect(sent?.query.get('symbols')).toBe('btc,eth,nope');
    expect(sent?.headers['x-cg-demo-api-key']).toBe('CG-demo-key');
    expect(body).toMatchObject({
      vs: 'usd',
      prices: { BTC: 96042.1, ETH: 3302.77 },
      sources: { BTC: 'coingecko', ETH: 'coingecko' },
    });
    expect(Object.keys(body.prices as object)).toEqual(['BTC', 'ETH']);
    const seen = gecko.requests.length;
    expect(
      (await kit.paid('token-price', { symbols: 'BTC,eth,nope', vs: 'USD' })).res.headers.get('x-cache'),
    ).toBe('hit');
    expect(gecko.requests.length).toBe(seen);
  });

  it('prices ids in another currency', async () => {
    const { body } = await kit.paid('token-price', { ids: 'solana', vs: 'IDR' });
    expect(body).toMatchObject({
      vs: 'idr',
      prices: { solana: 3134321.2 },
      sources: { solana: 'coingecko' },
    });
  });

  it('falls back to DefiLlama for dollar prices when CoinGecko is rate-limiting', async () => {
    gecko.fail('rate-limited', { retryAfter: '0' });
    try {
      const { body } = await kit.paid('token-price', { symbols: 'SOL,BNB' });
      expect(body).toMatchObject({
        prices: { SOL: 187.1, BNB: 912.4 },
        sources: { SOL: 'defillama', BNB: 'defillama' },
      });
      expect(llama.requests.at(-1)?.path).toBe('/prices/current/coingecko:solana,coingecko:binancecoin');
    } finally {
      gecko.fail(null);
    }
  });

  it('answers 502 naming coingecko when both are down; 400 or 404 for bad or unknown input; nothing charged', async () => {
    gecko.fail('down');
    llama.fail('down');
    try {
      expect((await kit.refused('token-price', { symbols: 'ETH', vs: 'usd' }, 502)).error.message).toContain(
        'coingecko',
      );
    } finally {
      gecko.fail(null);
      llama.fail(null);
    }
    expect((await kit.refused('token-price', {}, 400)).error.code).toBe('invalid_input');
    expect((await kit.refused('token-price', { symbols: 'BTC', vs: 'u$d' }, 400)).error.param).toBe('vs');
    expect((await kit.refused('token-price', { symbols: 'BTC', vs: 'xyz' }, 400)).error.message).toContain(
      'vs_currency',
    );
    expect((await kit.refused('token-price', { symbols: 'NOPE' }, 404)).error.param).toBe('symbols');
  });
});
