/**
 * The live tier: each data tool calls its real public upstream once, so a change in a provider's wire format is
 * caught by whoever runs it with network (`npm run test:live`, i.e. KASIR_LIVE=1). Off by default; skipped with a
 * notice when the network is unreachable. Tools that need a key run when it is in the environment (BRAVE_API_KEY
 * or another search key, OPENAI_API_KEY, SEC_USER_AGENT, COINGECKO_API_KEY).
 */
import { lookup } from 'node:dns/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startToolKit, type ToolKit } from '../support/tool-kit.js';

const live = process.env.KASIR_LIVE === '1';
const env = process.env;

async function online(): Promise<boolean> {
  try {
    await Promise.race([
      lookup('api.frankfurter.dev'),
      new Promise((_, reject) => setTimeout(() => reject(new Error('dns timeout')), 3000)),
    ]);
    return true;
  } catch {
    return false;
  }
}

describe.runIf(live)('data tools against their real upstreams', () => {
  let kit: ToolKit | undefined;
  beforeAll(async () => {
    if (!(await online())) {
      console.warn('live tier skipped: the network is unreachable (no DNS answer for api.frankfurter.dev)');
      return;
    }
    const pass = (names: string[]) => Object.fromEntries(names.filter((n) => env[n]).map((n) => [n, env[n]]));
    kit = await startToolKit('sqlite', {
      TOOL_TIMEOUT_MS: '20000',
      OPENAI_BASE_URL: 'https://api.openai.com/v1',
      OPENAI_API_KEY: env.OPENAI_API_KEY ?? '',
      ...pass([
        'BRAVE_API_KEY',
        'TAVILY_API_KEY',
        'EXA_API_KEY',
        'SEARXNG_URL',
        'SEC_USER_AGENT',
        'COINGECKO_API_KEY',
        'RPC_URLS',
        'DNS_SERVERS',
      ]),
    });
  });
  afterAll(() => kit?.stop());

  const cases: Array<[string, Record<string, unknown>, (body: Record<string, unknown>) => void, string?]> = [
    [
      'exchange-rate',
      { from: 'USD', to: 'IDR,EUR', amount: 10 },
      (b) => expect(typeof (b.rates as Record<string, number>).IDR).toBe('number'),
    ],
    ['perp-markets', { coins: 'BTC,ETH', limit: 2 }, (b) => expect((b.markets as unknown[]).length).toBe(2)],
    ['defi-tvl', { protocol: 'aave' }, (b) => expect(b.tvl_usd).toBeGreaterThan(0)],
    ['defi-tvl', { chain: 'ethereum' }, (b) => expect(b.rank).toBeGreaterThan(0)],
    ['dex-pairs', { query: 'PEPE' }, (b) => expect(b.matched).toBeGreaterThan(0)],
    [
      'token-price',
      { symbols: 'BTC,ETH' },
      (b) => expect((b.prices as Record<string, number>).BTC).toBeGreaterThan(0),
    ],
    ['gas-price', { chain: 'base' }, (b) => expect(b.gas_price_gwei).toBeGreaterThan(0)],
    [
      'rpc',
      { chain: 'ethereum', method: 'eth_blockNumber', params: [] },
      (b) => expect(String(b.result)).toMatch(/^0x/),
    ],
    ['domain-lookup', { domain: 'example.com' }, (b) => expect(b.registered).toBe(true)],
    ['market-brief', { symbols: 'BTC' }, (b) => expect(b.degraded).toEqual([])],
    ['search', { q: 'ECB reference rates', count: 3 }, (b) => expect(b.count).toBeGreaterThan(0), 'search'],
    [
      'embed',
      { texts: ['apa kabar', 'how are you'] },
      (b) => expect(b.dimensions).toBeGreaterThan(0),
      'OPENAI_API_KEY',
    ],
    ['moderate', { text: 'have a nice day' }, (b) => expect(b.flagged).toBe(false), 'OPENAI_API_KEY'],
    [
      'stock-filings',
      { ticker: 'AAPL', form: '10-K', limit: 2 },
      (b) => expect((b.filings as unknown[]).length).toBe(2),
      'SEC_USER_AGENT',
    ],
    [
      'stock-fundamentals',
      { ticker: 'AAPL', limit: 3 },
      (b) => expect((b.facts as unknown[]).length).toBeGreaterThan(0),
      'SEC_USER_AGENT',
    ],
  ];

  for (const [tool, body, check, needs] of cases) {
    it(`${tool} ${JSON.stringify(body)}`, async (ctx) => {
      if (!kit) return ctx.skip();
      const keyed =
        needs === 'search'
          ? ['BRAVE_API_KEY', 'TAVILY_API_KEY', 'EXA_API_KEY', 'SEARXNG_URL']
          : needs
            ? [needs]
            : [];
      if (keyed.length && !keyed.some((n) => env[n])) return ctx.skip();
      const { body: answer } = await kit.paid(tool, body);
      check(answer);
    }, 60_000);
  }
});
