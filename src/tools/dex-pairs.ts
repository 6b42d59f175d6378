/** tools/dex-pairs: DexScreener's pair search (symbol, name or contract address), the most liquid pairs first. */
import type { ToolFactory } from './types.js';
import { JsonUpstream } from './upstreams/json-upstream.js';
import { num } from './upstreams/numbers.js';

/** Prices and volumes move by the minute. */
const CACHE_TTL_MS = 30_000;
/** DexScreener's search answers at most 30 pairs; the 20 most liquid are shown. */
const MAX_PAIRS = 20;

interface DexPair {
  chainId: string;
  dexId: string;
  pairAddress: string;
  baseToken: { address: string; name: string; symbol: string };
  quoteToken: { address: string; name: string; symbol: string };
  priceUsd?: string;
  volume?: { h24?: number };
  priceChange?: { h24?: number };
  liquidity?: { usd?: number };
}

export const dexPairs: ToolFactory = (deps) => {
  const api = new JsonUpstream('dexscreener', deps.config.tools.baseUrls.dexscreener, deps.http);
  return {
    cacheTtlMs: CACHE_TTL_MS,
    async run(input, call) {
      const query = String(input.query).trim();
      const answer = await api.get<{ pairs?: DexPair[] | null }>(
        '/latest/dex/search',
        { q: query },
        call.signal,
      );
      const pairs = Array.isArray(answer?.pairs) ? answer.pairs : [];
      const rows = pairs
        .map((p) => ({
          chain: p.chainId,
          dex: p.dexId,
          pair: `${p.baseToken?.symbol}/${p.quoteToken?.symbol}`,
          price_usd: num(p.priceUsd),
          liquidity_usd: num(p.liquidity?.usd),
          volume_24h_usd: num(p.volume?.h24),
          price_change_24h_pct: num(p.priceChange?.h24),
        }))
        .sort((a, b) => (b.liquidity_usd ?? -1) - (a.liquidity_usd ?? -1))
        .slice(0, MAX_PAIRS);
      return { query, matched: pairs.length, pairs: rows, source: 'dexscreener' };
    },
  };
};
