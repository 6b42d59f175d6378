/**
 * tools/perp-markets: Hyperliquid's perpetual markets with mark and oracle price, 24 h change, hourly funding (and
 * that hour annualised), open interest and volume; sorted, limited, unknown coins listed in not_found.
 */
import type { ToolFactory } from './types.js';
import { hyperliquid, type PerpMarket } from './upstreams/hyperliquid.js';
import { csv, fixed, num, sig } from './upstreams/numbers.js';

/** Funding and prices move by the second; a few seconds old is still current. */
const CACHE_TTL_MS = 5_000;
const HOURS_PER_YEAR = 24 * 365;

type Row = ReturnType<typeof rowOf>;

function rowOf({ asset, ctx }: PerpMarket) {
  const mark = num(ctx.markPx);
  const prev = num(ctx.prevDayPx);
  const funding = num(ctx.funding);
  const oi = num(ctx.openInterest);
  return {
    coin: asset.name,
    mark_price: mark,
    oracle_price: num(ctx.oraclePx),
    change_24h_pct: mark !== null && prev ? fixed(((mark - prev) / prev) * 100, 4) : null,
    funding_rate_hourly: funding,
    funding_apr_pct: funding === null ? null : fixed(funding * HOURS_PER_YEAR * 100, 4),
    open_interest: oi,
    open_interest_usd: oi !== null && mark !== null ? fixed(oi * mark, 2) : null,
    volume_24h_usd: num(ctx.dayNtlVlm),
    premium: sig(num(ctx.premium)),
    max_leverage: asset.maxLeverage,
  };
}

const SORT_KEY: Record<string, (r: Row) => number | null> = {
  volume: (r) => r.volume_24h_usd,
  open_interest: (r) => r.open_interest_usd,
  funding: (r) => r.funding_rate_hourly,
  change: (r) => r.change_24h_pct,
};

export const perpMarkets: ToolFactory = (deps) => {
  const venue = hyperliquid(deps);
  return {
    cacheTtlMs: CACHE_TTL_MS,
    async run(input, call) {
      const sort = String(input.sort ?? 'volume');
      const limit = Number(input.limit ?? 10);
      const wanted = csv(input.coins);
      const markets = await venue.perpMarkets(call.signal);
      const listed = markets.filter((m) => !m.asset.isDelisted);
      const byName = new Map(markets.map((m) => [m.asset.name.toUpperCase(), m]));
      const picked = wanted.length
        ? wanted.map((c) => byName.get(c.toUpperCase())).filter((m): m is PerpMarket => m !== undefined)
        : listed;
      const key = SORT_KEY[sort] ?? SORT_KEY.volume;
      const rows = picked
        .map(rowOf)
        .sort((a, b) => (key?.(b) ?? Number.NEGATIVE_INFINITY) - (key?.(a) ?? Number.NEGATIVE_INFINITY))
        .slice(0, limit);
      return {
        venue: 'hyperliquid',
        sort,
        count: rows.length,
        total_markets: listed.length,
        not_found: wanted.filter((c) => !byName.has(c.toUpperCase())),
        funding_interval: '1h',
        markets: rows,
      };
    },
  };
};
