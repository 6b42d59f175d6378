/**
 * tools/defi-tvl: DefiLlama's TVL of a protocol (per chain, 1 d and 7 d change, market cap), of one chain (with its
 * rank), or the largest chains and the total. Borrowed, staking and pool2 amounts are left out.
 */
import { ApiError } from '../http/errors.js';
import type { ToolFactory } from './types.js';
import { defillama } from './upstreams/defillama.js';
import { fixed } from './upstreams/numbers.js';

/** DefiLlama refreshes TVL about hourly. */
const CACHE_TTL_MS = 10 * 60 * 1000;
const SOURCE = 'defillama';

const notFound = (field: string, message: string) => new ApiError('not_found', message, [{ field, message }]);

export const defiTvl: ToolFactory = (deps) => {
  const llama = defillama(deps);
  return {
    cacheTtlMs: CACHE_TTL_MS,
    async run(input, call) {
      const limit = Number(input.limit ?? 10);
      const slug = typeof input.protocol === 'string' ? input.protocol.trim().toLowerCase() : '';
      const chainName = typeof input.chain === 'string' ? input.chain.trim().toLowerCase() : '';
      if (slug) {
        const p = await llama.protocol(slug, call.signal);
        if (!p)
          throw notFound(
            'protocol',
            `defillama knows no protocol "${slug}" (use its slug, e.g. aave, uniswap)`,
          );
        const chains = chainName ? p.chains.filter((c) => c.chain.toLowerCase() === chainName) : p.chains;
        return {
          protocol: p.name,
          symbol: p.symbol,
          tvl_usd: fixed(p.tvlUsd),
          change_1d_pct: fixed(p.change1dPct, 4),
          change_7d_pct: fixed(p.change7dPct, 4),
          market_cap_usd: fixed(p.marketCapUsd),
          chains: chains.slice(0, limit).map((c) => ({ chain: c.chain, tvl_usd: fixed(c.tvl_usd) })),
          source: SOURCE,
        };
      }
      const chains = await llama.chains(call.signal);
      if (chainName) {
        const at = chains.findIndex((c) => c.name.toLowerCase() === chainName);
        const chain = chains[at];
        if (!chain)
          throw notFound('chain', `defillama tracks no chain "${input.chain}" (e.g. Ethereum, Base, Solana)`);
        return {
          chain: chain.name,
          tvl_usd: fixed(chain.tvl),
          rank: at + 1,
          chains_ranked: chains.length,
          token_symbol: chain.tokenSymbol,
          source: SOURCE,
        };
      }
      return {
        total_defi_tvl_usd: fixed(chains.reduce((sum, c) => sum + c.tvl, 0)),
        chains_counted: chains.length,
        top_chains: chains.slice(0, limit).map((c) => ({ chain: c.name, tvl_usd: fixed(c.tvl) })),
        source: SOURCE,
      };
    },
  };
};
