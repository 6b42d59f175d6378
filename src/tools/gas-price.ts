/**
 * tools/gas-price: the gas price a transaction pays now on an EVM chain (next block's base fee plus the median
 * priority fee of recent blocks, from eth_feeHistory; eth_gasPrice where a node has no fee history), and what
 * `gasLimit` gas costs in the native coin and in dollars.
 */
import { UpstreamError } from '../http/upstream-error.js';
import type { ToolDeps, ToolFactory } from './types.js';
import { chainRpc } from './upstreams/json-rpc.js';
import { sig } from './upstreams/numbers.js';
import { createPriceSource } from './upstreams/prices.js';

/** Blocks come every 0.25–12 s. */
const CACHE_TTL_MS = 10_000;

/** Each chain's native coin: its symbol and CoinGecko id. */
export const NATIVE: Record<string, { symbol: string; id: string }> = {
  ethereum: { symbol: 'ETH', id: 'ethereum' },
  base: { symbol: 'ETH', id: 'ethereum' },
  arbitrum: { symbol: 'ETH', id: 'ethereum' },
  optimism: { symbol: 'ETH', id: 'ethereum' },
  bsc: { symbol: 'BNB', id: 'binancecoin' },
  polygon: { symbol: 'POL', id: 'polygon-ecosystem-token' },
};

export interface GasQuote {
  chain: string;
  gas_price_gwei: number | null;
  priority_fee_gwei: number | null;
  native_symbol: string;
  gas_limit: number;
  estimated_cost_native: number | null;
  estimated_cost_usd: number | null;
}

const wei = (hex: unknown): bigint => {
  if (typeof hex !== 'string' || !/^0x[0-9a-f]+$/i.test(hex))
    throw new TypeError(`not a quantity: ${String(hex)}`);
  return BigInt(hex);
};
const gwei = (w: bigint) => sig(Number(w) / 1e9, 6);
const median = (xs: bigint[]) => {
  const s = [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return s[Math.floor(s.length / 2)] ?? 0n;
};

/** The gas quote of one chain; shared with tools/market-brief. */
export function gasQuoter(deps: ToolDeps) {
  const nodes = chainRpc(deps);
  const priceOf = createPriceSource(deps);
  const rpcOrThrow = async (
    chain: string,
    method: string,
    params: unknown[],
    signal: Parameters<typeof nodes.call>[3],
  ) => {
    const out = await nodes.call(chain, method, params, signal);
    if (!out.ok)
      throw new UpstreamError('upstream', `the ${chain} rpc node refused ${method}: ${out.message}`);
    return out.result;
  };
  return async (
    chain: string,
    gasLimit: number,
    signal: Parameters<typeof nodes.call>[3],
  ): Promise<GasQuote> => {
    const native = NATIVE[chain];
    if (!native || !nodes.chains.includes(chain))
      throw new UpstreamError('not_configured', `no node for ${chain}`);
    const [fees, price] = await Promise.all([
      (async () => {
        const history = await nodes.call(chain, 'eth_feeHistory', ['0x5', 'latest', [50]], signal);
        try {
          if (history.ok) {
            const h = history.result as { baseFeePerGas?: unknown[]; reward?: unknown[][] };
            const base = wei(h.baseFeePerGas?.at(-1));
            const tips = (h.reward ?? []).map((r) => wei(r[0]));
            const tip = tips.length ? median(tips) : 0n;
            return { price: base + tip, tip: tips.length ? tip : null };
          }
          return { price: wei(await rpcOrThrow(chain, 'eth_gasPrice', [], signal)), tip: null };
        } catch (err) {
          if (err instanceof UpstreamError) throw err;
          throw new UpstreamError('upstream', `the ${chain} rpc node answered fees in an unexpected shape`);
        }
      })(),
      priceOf({ ids: [native.id], vs: 'usd' }, signal),
    ]);
    const usd = price.prices[native.id] ?? null;
    const costNative = (Number(fees.price) * gasLimit) / 1e18;
    return {
      chain,
      gas_price_gwei: gwei(fees.price),
      priority_fee_gwei: fees.tip === null ? null : gwei(fees.tip),
      native_symbol: native.symbol,
      gas_limit: gasLimit,
      estimated_cost_native: sig(costNative, 6),
      estimated_cost_usd: usd === null ? null : sig(costNative * usd, 6),
    };
  };
}

export const gasPrice: ToolFactory = (deps) => {
  const quote = gasQuoter(deps);
  return {
    cacheTtlMs: CACHE_TTL_MS,
    async run(input, call) {
      return { ...(await quote(String(input.chain), Number(input.gasLimit ?? 21_000), call.signal)) };
    },
  };
};
