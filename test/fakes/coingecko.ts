/**
 * A fake CoinGecko API v3: GET /api/v3/simple/price?vs_currencies=&ids= | &symbols= answers
 * `{"bitcoin": {"usd": 96042.1}}` (keyed by id, or by the lower-case symbol when asked by symbols), unknown coins
 * left out; an unknown vs_currency is its 400 `{"error": "invalid vs_currency"}`, a 429 its
 * `{"status": {"error_code": 429, "error_message": …}}`.
 */
import data from './fixtures/coingecko-prices.json' with { type: 'json' };
import { type FakeJsonUpstream, startFakeJsonUpstream } from './json-upstream.js';

type Coin = (typeof data.coins)[number];
const CURRENCIES = ['usd', 'idr', 'eur'] as const;

export function startFakeCoinGecko(): Promise<FakeJsonUpstream> {
  return startFakeJsonUpstream({
    basePath: '/api/v3',
    errorBody: (status, message) =>
      status === 429
        ? {
            status: {
              error_code: 429,
              error_message:
                "You've exceeded the Rate Limit. Please visit https://www.coingecko.com/en/api/pricing to subscribe to our API plans for higher rate limits.",
            },
          }
        : { error: message },
    routes: [
      {
        method: 'GET',
        path: /^\/simple\/price$/,
        answer(req) {
          const vs = (req.query.get('vs_currencies') ?? '').split(',');
          if (!vs.every((c) => (CURRENCIES as readonly string[]).includes(c))) {
            return { status: 400, body: { error: 'invalid vs_currency' } };
          }
          const symbols = req.query.get('symbols')?.split(',');
          const ids = req.query.get('ids')?.split(',');
          const body: Record<string, Record<string, number>> = {};
          for (const coin of data.coins) {
            const key = symbols
              ? symbols.includes(coin.symbol)
                ? coin.symbol
                : undefined
              : ids?.includes(coin.id)
                ? coin.id
                : undefined;
            if (key) body[key] = Object.fromEntries(vs.map((c) => [c, coin[c as keyof Coin] as number]));
          }
          return { body };
        },
      },
    ],
  });
}
