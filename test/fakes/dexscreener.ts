/**
 * A fake DexScreener: GET /latest/dex/search?q= answers the recorded pairs whose base token's symbol, name or
 * address matches (a pair without liquidity included, as DexScreener lists them); none → `{pairs: []}`.
 */
import search from './fixtures/dexscreener-search.json' with { type: 'json' };
import { type FakeJsonUpstream, startFakeJsonUpstream } from './json-upstream.js';

export function startFakeDexScreener(): Promise<FakeJsonUpstream> {
  return startFakeJsonUpstream({
    errorBody: (_status, message) => ({ error: message }),
    routes: [
      {
        method: 'GET',
        path: /^\/latest\/dex\/search$/,
        answer(req) {
          const q = (req.query.get('q') ?? '').toLowerCase();
          const pairs = search.pairs.filter((p) =>
            [p.baseToken.symbol, p.baseToken.name, p.baseToken.address, p.pairAddress].some((v) =>
              v.toLowerCase().includes(q),
            ),
          );
          return { body: { schemaVersion: search.schemaVersion, pairs } };
        },
      },
    ],
  });
}
