/**
 * A fake Hyperliquid info API: POST /info {"type":"metaAndAssetCtxs"} answers the recorded tuple [meta, assetCtxs]
 * (decimal strings, null premium/midPx on thin markets, a delisted asset); any other body is its 422
 * "Failed to deserialize the JSON body into the target type".
 */
import answer from './fixtures/hyperliquid-meta-and-asset-ctxs.json' with { type: 'json' };
import { type FakeJsonUpstream, startFakeJsonUpstream } from './json-upstream.js';

export function startFakeHyperliquid(): Promise<FakeJsonUpstream> {
  return startFakeJsonUpstream({
    errorBody: (_status, message) => message,
    routes: [
      {
        method: 'POST',
        path: /^\/info$/,
        answer(req) {
          if ((req.body as { type?: unknown } | undefined)?.type !== 'metaAndAssetCtxs') {
            return { status: 422, raw: 'Failed to deserialize the JSON body into the target type' };
          }
          return { body: answer };
        },
      },
    ],
  });
}
