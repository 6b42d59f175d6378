/**
 * tools/market-brief: one call for a market overview: token prices (CoinGecko, DefiLlama fallback), gas on one
 * chain (its node's fee history) and DeFi TVL (DefiLlama; a protocol's too when named). The sections run side by
 * side; one whose upstream fails is null and named in `degraded` (the rest is answered, and charged); when every
 * section fails the call fails, uncharged.
 */
import { invalidInput } from '../http/errors.js';
import { UpstreamError } from '../http/upstream-error.js';
import { gasQuoter, NATIVE } from './gas-price.js';
import type { ToolFactory } from './types.js';
import { defillama } from './upstreams/defillama.js';
import { csv, fixed } from './upstreams/numbers.js';
import { createPriceSource } from './upstreams/prices.js';

/** The shortest-lived part (gas) changes by the block; half a minute is still a fair overview. */
const CACHE_TTL_MS = 30_000;
const TOP_CHAINS = 5;
const TRANSFER_GAS = 21_000;

export const marketBrief: ToolFactory = (deps) => {
  const priceOf = createPriceSource(deps);
  const gasOf = gasQuoter(deps);
  const llama = defillama(deps);
  return {
    cacheTtlMs: CACHE_TTL_MS,
    async run(input, call) {
      const chain = String(input.chain ?? 'ethereum')
        .trim()
        .toLowerCase();
      if (!NATIVE[chain]) {
        throw invalidInput([
          { field: 'chain', message: `gas is known for ${Object.keys(NATIVE).join(', ')}` },
        ]);
      }
      const symbols = (csv(input.symbols).length ? csv(input.symbols) : ['BTC', 'ETH']).map((s) =>
        s.toUpperCase(),
      );
      if (symbols.length > 50) throw invalidInput([{ field: 'symbols', message: 'at most 50 symbols' }]);
      const protocol =
        typeof input.protocol === 'string' && input.protocol.trim()
          ? input.protocol.trim().toLowerCase()
          : null;

      const sections = {
        prices: (async () => (await priceOf({ symbols, vs: 'usd' }, call.signal)).prices)(),
        gas: (async () => {
          const q = await gasOf(chain, TRANSFER_GAS, call.signal);
          return {
            chain: q.chain,
            gas_price_gwei: q.gas_price_gwei,
            native_symbol: q.native_symbol,
            transfer_cost_usd: q.estimated_cost_usd,
          };
        })(),
        defi: (async () => {
          const [chains, p] = await Promise.all([
            llama.chains(call.signal),
            protocol ? llama.protocol(protocol, call.signal) : Promise.resolve(undefined),
          ]);
          return {
            total_defi_tvl_usd: fixed(chains.reduce((sum, c) => sum + c.tvl, 0)),
            top_chains: chains.slice(0, TOP_CHAINS).map((c) => ({ chain: c.name, tvl_usd: fixed(c.tvl) })),
            ...(protocol
              ? {
                  protocol: p
                    ? { name: p.name, tvl_usd: fixed(p.tvlUsd), change_1d_pct: fixed(p.change1dPct, 4) }
                    : null,
                }
              : {}),
          };
        })(),
      };
      const names = Object.keys(sections) as Array<keyof typeof sections>;
      const settled = await Promise.allSettled(names.map((n) => sections[n]));
      const degraded = names.filter((_, i) => settled[i]?.status === 'rejected');
      if (degraded.length === names.length) {
        const first = (settled[0] as PromiseRejectedResult).reason;
        throw first instanceof UpstreamError
          ? first
          : new UpstreamError('upstream', 'every market-brief upstream failed', { beforeFirstByte: true });
      }
      for (const [i, name] of names.entries()) {
        const s = settled[i];
        if (s?.status === 'rejected')
          deps.log.warn({ section: name, err: String(s.reason) }, 'market-brief section failed');
      }
      const value = (i: number) => {
        const s = settled[i];
        return s?.status === 'fulfilled' ? s.value : null;
      };
      return { as_of: new Date().toISOString(), prices: value(0), gas: value(1), defi: value(2), degraded };
    },
  };
};
