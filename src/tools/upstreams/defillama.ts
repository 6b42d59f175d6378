/**
 * DefiLlama (https://api-docs.defillama.com/): a protocol's TVL (GET /protocol/{slug}), every chain's TVL
 * (GET /v2/chains), and current coin prices (coins.llama.fi GET /prices/current/{coins}).
 */
import type { CallSignal } from '../../http/call-signal.js';
import { UpstreamError } from '../../http/upstream-error.js';
import type { ToolDeps } from '../types.js';
import { JsonUpstream } from './json-upstream.js';
import { num } from './numbers.js';

export interface ChainTvl {
  name: string;
  tvl: number;
  tokenSymbol: string | null;
}

export interface ProtocolTvl {
  name: string;
  slug: string;
  symbol: string | null;
  /** Current TVL per chain, borrowed, staking, pool2 and the like left out. */
  chains: Array<{ chain: string; tvl_usd: number }>;
  tvlUsd: number;
  change1dPct: number | null;
  change7dPct: number | null;
  marketCapUsd: number | null;
}

/**
 * `currentChainTvls` keys that are not plain chains: DefiLlama reports borrowed, staked, pool2, vesting (and the
 * like) amounts as separate keys, bare (`borrowed`) or per chain (`Ethereum-borrowed`); TVL leaves them out.
 */
const isPlainChain = (key: string) => !key.includes('-') && !/^[a-z0-9]+$/.test(key);

const changePct = (series: Array<{ date: number; totalLiquidityUSD: number }>, seconds: number) => {
  const last = series.at(-1);
  if (!last) return null;
  const then = [...series].reverse().find((p) => p.date <= last.date - seconds);
  return then?.totalLiquidityUSD
    ? ((last.totalLiquidityUSD - then.totalLiquidityUSD) / then.totalLiquidityUSD) * 100
    : null;
};

const malformed = (what: string) =>
  new UpstreamError('upstream', `defillama answered ${what} in an unexpected shape`, {
    beforeFirstByte: true,
  });

export function defillama(deps: ToolDeps) {
  const { baseUrls } = deps.config.tools;
  const api = new JsonUpstream('defillama', baseUrls.defillama, deps.http);
  const coins = new JsonUpstream('defillama-coins', baseUrls.defillamaCoins, deps.http);
  return {
    /** Every chain DefiLlama tracks, largest TVL first. */
    async chains(signal: CallSignal): Promise<ChainTvl[]> {
      const answer = await api.get<unknown>('/v2/chains', undefined, signal);
      if (!Array.isArray(answer)) throw malformed('/v2/chains');
      return answer
        .map((c: Record<string, unknown>) => ({
          name: String(c.name),
          tvl: num(c.tvl) ?? 0,
          tokenSymbol: typeof c.tokenSymbol === 'string' ? c.tokenSymbol : null,
        }))
        .sort((a, b) => b.tvl - a.tvl);
    },

    /** One protocol by slug; undefined when DefiLlama does not know it. */
    async protocol(slug: string, signal: CallSignal): Promise<ProtocolTvl | undefined> {
      let answer: Record<string, unknown>;
      try {
        answer = await api.get(`/protocol/${encodeURIComponent(slug)}`, undefined, signal);
      } catch (err) {
        if (err instanceof UpstreamError && (err.options.status === 400 || err.options.status === 404))
          return undefined;
        throw err;
      }
      const current = answer?.currentChainTvls;
      if (!current || typeof current !== 'object') throw malformed('/protocol');
      const chains = Object.entries(current as Record<string, unknown>)
        .filter(([key]) => isPlainChain(key))
        .map(([chain, tvl]) => ({ chain, tvl_usd: num(tvl) ?? 0 }))
        .sort((a, b) => b.tvl_usd - a.tvl_usd);
      const series = Array.isArray(answer.tvl)
        ? (answer.tvl as Array<{ date: number; totalLiquidityUSD: number }>)
        : [];
      return {
        name: String(answer.name ?? slug),
        slug,
        symbol: typeof answer.symbol === 'string' && answer.symbol !== '-' ? answer.symbol : null,
        chains,
        tvlUsd: chains.reduce((sum, c) => sum + c.tvl_usd, 0),
        change1dPct: changePct(series, 86_400),
        change7dPct: changePct(series, 7 * 86_400),
        marketCapUsd: num(answer.mcap),
      };
    },

    /** USD prices of `coingecko:<id>` (or `<chain>:<address>`) coins; those it does not know are left out. */
    async prices(
      keys: string[],
      signal: CallSignal,
    ): Promise<Record<string, { price: number; symbol: string }>> {
      const answer = await coins.get<{ coins?: Record<string, { price?: unknown; symbol?: unknown }> }>(
        `/prices/current/${keys.map((k) => encodeURIComponent(k).replaceAll('%3A', ':')).join(',')}`,
        undefined,
        signal,
      );
      if (!answer || typeof answer.coins !== 'object') throw malformed('/prices/current');
      const out: Record<string, { price: number; symbol: string }> = {};
      for (const [key, coin] of Object.entries(answer.coins)) {
        const price = num(coin.price);
        if (price !== null) out[key] = { price, symbol: String(coin.symbol ?? '') };
      }
      return out;
    },
  };
}
