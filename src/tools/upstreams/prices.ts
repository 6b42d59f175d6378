/**
 * Token prices for the tools: CoinGecko's /simple/price (by symbol or by id, in any currency it quotes), and when
 * CoinGecko fails, DefiLlama's coins API (dollar prices of CoinGecko ids; symbols through a short list of the
 * best-known coins' ids).
 */
import type { CallSignal } from '../../http/call-signal.js';
import { UpstreamError } from '../../http/upstream-error.js';
import type { ToolDeps } from '../types.js';
import { defillama } from './defillama.js';
import { JsonUpstream } from './json-upstream.js';
import { num } from './numbers.js';

/** CoinGecko ids of symbols DefiLlama can price when CoinGecko is down (it prices ids, not symbols). */
const WELL_KNOWN_IDS: Record<string, string> = {
  BTC: 'bitcoin',
  ETH: 'ethereum',
  SOL: 'solana',
  BNB: 'binancecoin',
  POL: 'polygon-ecosystem-token',
  MATIC: 'matic-network',
  USDC: 'usd-coin',
  USDT: 'tether',
  DAI: 'dai',
  XRP: 'ripple',
  ADA: 'cardano',
  DOGE: 'dogecoin',
  AVAX: 'avalanche-2',
  DOT: 'polkadot',
  LINK: 'chainlink',
  TRX: 'tron',
  TON: 'the-open-network',
  ARB: 'arbitrum',
  OP: 'optimism',
  ALGO: 'algorand',
  SUI: 'sui',
  APT: 'aptos',
  PEPE: 'pepe',
  SHIB: 'shiba-inu',
  LTC: 'litecoin',
  ATOM: 'cosmos',
  NEAR: 'near',
  UNI: 'uniswap',
  AAVE: 'aave',
  WBTC: 'wrapped-bitcoin',
};

export interface PriceRequest {
  /** Upper-case symbols (BTC) … */
  symbols?: string[];
  /** … or CoinGecko ids (bitcoin), as given. */
  ids?: string[];
  /** Lower-case quote currency (usd, idr). */
  vs: string;
}

export interface Prices {
  /** Price per requested symbol or id; those no source knows are absent. */
  prices: Record<string, number>;
  /** Which upstream priced each. */
  sources: Record<string, 'coingecko' | 'defillama'>;
}

export type PriceSource = (req: PriceRequest, signal: CallSignal) => Promise<Prices>;

export function createPriceSource(deps: ToolDeps): PriceSource {
  const { coingecko: cg, baseUrls } = deps.config.tools;
  // A pro key goes to the pro host (unless the base URL was overridden); a demo key to the public one.
  const proHost = cg.pro && baseUrls.coingecko === 'https://api.coingecko.com/api/v3';
  const gecko = new JsonUpstream(
    'coingecko',
    proHost ? 'https://pro-api.coingecko.com/api/v3' : baseUrls.coingecko,
    deps.http,
    cg.apiKey
      ? { headers: { [cg.pro ? 'x-cg-pro-api-key' : 'x-cg-demo-api-key']: cg.apiKey }, secret: cg.apiKey }
      : {},
  );
  const llama = defillama(deps);

  const fromGecko = async (req: PriceRequest, signal: CallSignal): Promise<Prices> => {
    const bySymbol = Boolean(req.symbols?.length);
    const keys = bySymbol ? (req.symbols ?? []) : (req.ids ?? []);
    const answer = await gecko.get<Record<string, Record<string, unknown>>>(
      '/simple/price',
      {
        vs_currencies: req.vs,
        ...(bySymbol ? { symbols: keys.join(',').toLowerCase() } : { ids: keys.join(',') }),
      },
      signal,
    );
    if (!answer || typeof answer !== 'object') {
      throw new UpstreamError('upstream', 'coingecko answered /simple/price in an unexpected shape', {
        beforeFirstByte: true,
      });
    }
    const out: Prices = { prices: {}, sources: {} };
    for (const key of keys) {
      const price = num(answer[bySymbol ? key.toLowerCase() : key]?.[req.vs]);
      if (price === null) continue;
      out.prices[key] = price;
      out.sources[key] = 'coingecko';
    }
    return out;
  };

  const fromLlama = async (req: PriceRequest, signal: CallSignal): Promise<Prices> => {
    const wanted = (req.symbols ?? req.ids ?? []).map((key) => ({
      key,
      id: req.symbols?.length ? WELL_KNOWN_IDS[key] : key,
    }));
    const ids = wanted.filter((w): w is { key: string; id: string } => w.id !== undefined);
    const out: Prices = { prices: {}, sources: {} };
    if (!ids.length) return out;
    const found = await llama.prices(
      ids.map((w) => `coingecko:${w.id}`),
      signal,
    );
    for (const { key, id } of ids) {
      const coin = found[`coingecko:${id}`];
      if (!coin) continue;
      out.prices[key] = coin.price;
      out.sources[key] = 'defillama';
    }
    return out;
  };

  return async (req, signal) => {
    try {
      return await fromGecko(req, signal);
    } catch (err) {
      // DefiLlama quotes dollars only; a caller's bad input (an unknown currency) is not a reason to fall back.
      if (!(err instanceof UpstreamError) || err.kind === 'bad_request' || req.vs !== 'usd') throw err;
      deps.log.warn({ err: err.message }, 'coingecko failed; pricing through defillama');
      try {
        return await fromLlama(req, signal);
      } catch {
        throw err;
      }
    }
  };
}
