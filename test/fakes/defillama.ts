/**
 * Fake DefiLlama APIs from recorded shapes: api.llama.fi (GET /protocol/{slug}, GET /v2/chains; an unknown protocol
 * is its 400 `{"message":"Protocol is not in our database"}`) and coins.llama.fi (GET /prices/current/{coins}:
 * `{coins: {"coingecko:bitcoin": {price, symbol, timestamp, confidence}}}`, unknown coins left out).
 */
import data from './fixtures/defillama.json' with { type: 'json' };
import { type FakeJsonUpstream, startFakeJsonUpstream } from './json-upstream.js';

const errorBody = (_status: number, message: string) => ({ message });

export function startFakeDefiLlama(): Promise<FakeJsonUpstream> {
  const protocols = data.protocols as Record<string, unknown>;
  return startFakeJsonUpstream({
    errorBody,
    routes: [
      {
        method: 'GET',
        path: /^\/protocol\/([^/]+)$/,
        answer(_req, match) {
          const p = protocols[decodeURIComponent(match[1] ?? '').toLowerCase()];
          return p ? { body: p } : { status: 400, body: { message: 'Protocol is not in our database' } };
        },
      },
      { method: 'GET', path: /^\/v2\/chains$/, answer: () => ({ body: data.chains }) },
    ],
  });
}

export function startFakeDefiLlamaCoins(): Promise<FakeJsonUpstream> {
  const known = data.coins as Record<string, unknown>;
  return startFakeJsonUpstream({
    errorBody,
    routes: [
      {
        method: 'GET',
        path: /^\/prices\/current\/([^/]+)$/,
        answer(_req, match) {
          const coins: Record<string, unknown> = {};
          for (const key of decodeURIComponent(match[1] ?? '').split(','))
            if (known[key]) coins[key] = known[key];
          return { body: { coins } };
        },
      },
    ],
  });
}
