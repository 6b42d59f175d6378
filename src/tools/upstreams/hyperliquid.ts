/** Hyperliquid's info API (POST /info, https://hyperliquid.gitbook.io/hyperliquid-docs/for-developers/api/info-endpoint). */
import type { CallSignal } from '../../http/call-signal.js';
import { UpstreamError } from '../../http/upstream-error.js';
import type { ToolDeps } from '../types.js';
import { JsonUpstream } from './json-upstream.js';

export interface PerpUniverseAsset {
  name: string;
  szDecimals: number;
  maxLeverage: number;
  isDelisted?: boolean;
}

/** One asset context; numbers are decimal strings, `premium` and `midPx` may be null. */
export interface PerpAssetCtx {
  funding: string;
  openInterest: string;
  prevDayPx: string;
  dayNtlVlm: string;
  premium: string | null;
  oraclePx: string;
  markPx: string;
  midPx?: string | null;
}

export interface PerpMarket {
  asset: PerpUniverseAsset;
  ctx: PerpAssetCtx;
}

export function hyperliquid(deps: ToolDeps) {
  const api = new JsonUpstream('hyperliquid', deps.config.tools.baseUrls.hyperliquid, deps.http);
  return {
    /** `metaAndAssetCtxs`: [meta { universe }, assetCtxs], paired by index. */
    async perpMarkets(signal: CallSignal): Promise<PerpMarket[]> {
      const answer = await api.post<unknown>('/info', { type: 'metaAndAssetCtxs' }, signal);
      const [meta, ctxs] = Array.isArray(answer) ? answer : [];
      const universe = (meta as { universe?: unknown } | undefined)?.universe;
      if (!Array.isArray(universe) || !Array.isArray(ctxs) || universe.length !== ctxs.length) {
        throw new UpstreamError('upstream', 'hyperliquid answered metaAndAssetCtxs in an unexpected shape', {
          beforeFirstByte: true,
        });
      }
      return universe.map((asset, i) => ({
        asset: asset as PerpUniverseAsset,
        ctx: ctxs[i] as PerpAssetCtx,
      }));
    },
  };
}
