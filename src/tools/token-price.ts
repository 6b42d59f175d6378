/** tools/token-price: current token prices by symbol or CoinGecko id, CoinGecko first and DefiLlama as fallback. */
import { ApiError } from '../http/errors.js';
import type { ToolFactory } from './types.js';
import { csv } from './upstreams/numbers.js';
import { createPriceSource } from './upstreams/prices.js';

/** Prices move by the second, but a call a few seconds after another wants the same answer. */
const CACHE_TTL_MS = 15_000;
/** CoinGecko's public tier takes up to 50 ids or symbols per call. */
const MAX_KEYS = 50;

export const tokenPrice: ToolFactory = (deps) => {
  const priceOf = createPriceSource(deps);
  return {
    cacheTtlMs: CACHE_TTL_MS,
    cacheKey: (input) => [
      String(input.vs ?? 'usd').toLowerCase(),
      csv(input.symbols).map((s) => s.toUpperCase()),
      csv(input.symbols).length ? [] : csv(input.ids).map((s) => s.toLowerCase()),
    ],
    async run(input, call) {
      const vs = String(input.vs ?? 'usd').toLowerCase();
      const symbols = csv(input.symbols).map((s) => s.toUpperCase());
      const ids = symbols.length ? [] : csv(input.ids).map((s) => s.toLowerCase());
      const field = symbols.length ? 'symbols' : 'ids';
      const keys = symbols.length ? symbols : ids;
      if (!keys.length || keys.length > MAX_KEYS) {
        const message = `give 1 to ${MAX_KEYS} comma-separated ${field}`;
        throw new ApiError('invalid_input', `invalid input: ${field}: ${message}`, [{ field, message }]);
      }
      const { prices, sources } = await priceOf(symbols.length ? { symbols, vs } : { ids, vs }, call.signal);
      if (!Object.keys(prices).length) {
        const message = `no price found for ${keys.join(', ')} in ${vs}`;
        throw new ApiError('not_found', message, [{ field, message }]);
      }
      return { vs, prices, sources };
    },
  };
};
