/**
 * Settings of the paid data tools (tools/exchange-rate, tools/rpc, …): each upstream's base URL (defaulting to the
 * public service), the keys of those that need one, the operator's JSON-RPC nodes and the SEC contact.
 */
import { z } from 'zod';
import { optionalString, type SettingsArea } from './setting.js';

/** Each keyless public upstream: its base-URL setting and its default. */
export const TOOL_UPSTREAMS = {
  frankfurter: { env: 'FRANKFURTER_BASE_URL', default: 'https://api.frankfurter.dev/v1' },
  hyperliquid: { env: 'HYPERLIQUID_BASE_URL', default: 'https://api.hyperliquid.xyz' },
  coingecko: { env: 'COINGECKO_BASE_URL', default: 'https://api.coingecko.com/api/v3' },
  defillama: { env: 'DEFILLAMA_BASE_URL', default: 'https://api.llama.fi' },
  defillamaCoins: { env: 'DEFILLAMA_COINS_BASE_URL', default: 'https://coins.llama.fi' },
  dexscreener: { env: 'DEXSCREENER_BASE_URL', default: 'https://api.dexscreener.com' },
  secData: { env: 'SEC_DATA_BASE_URL', default: 'https://data.sec.gov' },
  secWww: { env: 'SEC_WWW_BASE_URL', default: 'https://www.sec.gov' },
  rdapBootstrap: { env: 'RDAP_BOOTSTRAP_URL', default: 'https://data.iana.org/rdap/dns.json' },
  brave: { env: 'BRAVE_BASE_URL', default: 'https://api.search.brave.com' },
  tavily: { env: 'TAVILY_BASE_URL', default: 'https://api.tavily.com' },
  exa: { env: 'EXA_BASE_URL', default: 'https://api.exa.ai' },
} as const;
export type ToolUpstreamName = keyof typeof TOOL_UPSTREAMS;

/**
 * Public JSON-RPC nodes used for a chain RPC_URLS does not name (tools/rpc, tools/gas-price): keyless endpoints
 * their projects publish. An operator with its own nodes (or a provider key) names them in RPC_URLS.
 */
export const DEFAULT_RPC_URLS: Readonly<Record<string, string>> = {
  ethereum: 'https://ethereum-rpc.publicnode.com',
  base: 'https://mainnet.base.org',
  arbitrum: 'https://arb1.arbitrum.io/rpc',
  optimism: 'https://mainnet.optimism.io',
  bsc: 'https://bsc-dataseed.bnbchain.org',
  polygon: 'https://polygon-rpc.com',
  solana: 'https://api.mainnet-beta.solana.com',
};

/** Search providers, in the default order they are tried. */
export const SEARCH_PROVIDERS = ['brave', 'tavily', 'exa', 'searxng'] as const;
export type SearchProviderName = (typeof SEARCH_PROVIDERS)[number];

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .default('false')
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

export const toolsEnvShape = {
  ...Object.fromEntries(Object.values(TOOL_UPSTREAMS).map((u) => [u.env, z.url().optional()])),
  TOOL_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  TOOL_UPSTREAM_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  COINGECKO_API_KEY: optionalString,
  COINGECKO_PRO: bool,
  SEC_USER_AGENT: optionalString,
  RPC_URLS: optionalString,
  RPC_ALLOW_SEND_RAW_TRANSACTION: bool,
  DNS_SERVERS: optionalString,
  BRAVE_API_KEY: optionalString,
  TAVILY_API_KEY: optionalString,
  EXA_API_KEY: optionalString,
  SEARXNG_URL: z.url().optional(),
  SEARCH_PROVIDERS: optionalString,
  EMBED_PROVIDER: optionalString,
  MODERATION_PROVIDER: optionalString,
  EMBED_MODEL: z.string().min(1).default('text-embedding-3-small'),
  MODERATION_MODEL: z.string().min(1).default('omni-moderation-latest'),
} as Record<string, z.ZodType>;

export interface ToolsConfig {
  /** Base URL of each keyless upstream (no trailing slash). */
  baseUrls: Record<ToolUpstreamName, string>;
  timeoutMs: number;
  /** The most requests kasir has open at once to one upstream. */
  concurrency: number;
  coingecko: { apiKey: string | undefined; pro: boolean };
  /** The contact SEC EDGAR requires in the User-Agent ("Company admin@example.com"); unset = stock tools off. */
  secUserAgent: string | undefined;
  /** JSON-RPC node per chain name (lower case): DEFAULT_RPC_URLS, with RPC_URLS on top. */
  rpcUrls: Record<string, string>;
  rpcAllowSendRawTransaction: boolean;
  /** DNS resolvers for domain-lookup (`ip` or `ip:port`); empty = the system's. */
  dnsServers: string[];
  search: {
    order: SearchProviderName[];
    keys: { brave: string | undefined; tavily: string | undefined; exa: string | undefined };
    searxngUrl: string | undefined;
  };
  /** The chat provider (OpenAI-compatible) whose /embeddings serves tools/embed. */
  embedProvider: string;
  embedModel: string;
  /** The chat provider (OpenAI-compatible) whose /moderations serves tools/moderate. */
  moderationProvider: string;
  moderationModel: string;
}

function parseRpcUrls(raw: string | undefined, problems: string[]): Record<string, string> {
  const urls: Record<string, string> = {};
  for (const part of (raw ?? '').split(',').map((p) => p.trim())) {
    if (!part) continue;
    const at = part.indexOf('=');
    const chain = part.slice(0, at).trim().toLowerCase();
    const url = part.slice(at + 1).trim();
    if (at <= 0 || !/^https?:\/\//.test(url) || !URL.canParse(url)) {
      problems.push(`RPC_URLS: "${part}" is not <chain>=<http(s) URL>`);
      continue;
    }
    urls[chain] = url;
  }
  return urls;
}

function parseSearchOrder(raw: string | undefined, problems: string[]): SearchProviderName[] {
  if (!raw) return [...SEARCH_PROVIDERS];
  const order: SearchProviderName[] = [];
  for (const name of raw.split(',').map((p) => p.trim().toLowerCase())) {
    if (!name) continue;
    if ((SEARCH_PROVIDERS as readonly string[]).includes(name)) order.push(name as SearchProviderName);
    else problems.push(`SEARCH_PROVIDERS: "${name}" is not one of ${SEARCH_PROVIDERS.join(', ')}`);
  }
  return order;
}

const list = (raw: string | undefined) =>
  (raw ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);

/** Reads the tool settings out of the validated environment; problems are pushed, one line each. */
export function parseTools(values: Record<string, unknown>, problems: string[]): ToolsConfig {
  const read = (name: string) => values[name] as string | undefined;
  const baseUrls = Object.fromEntries(
    Object.entries(TOOL_UPSTREAMS).map(([name, u]) => [name, (read(u.env) ?? u.default).replace(/\/+$/, '')]),
  ) as Record<ToolUpstreamName, string>;
  return {
    baseUrls,
    timeoutMs: values.TOOL_TIMEOUT_MS as number,
    concurrency: values.TOOL_UPSTREAM_CONCURRENCY as number,
    coingecko: { apiKey: read('COINGECKO_API_KEY'), pro: values.COINGECKO_PRO as boolean },
    secUserAgent: read('SEC_USER_AGENT'),
    rpcUrls: { ...DEFAULT_RPC_URLS, ...parseRpcUrls(read('RPC_URLS'), problems) },
    rpcAllowSendRawTransaction: values.RPC_ALLOW_SEND_RAW_TRANSACTION as boolean,
    dnsServers: list(read('DNS_SERVERS')),
    search: {
      order: parseSearchOrder(read('SEARCH_PROVIDERS'), problems),
      keys: { brave: read('BRAVE_API_KEY'), tavily: read('TAVILY_API_KEY'), exa: read('EXA_API_KEY') },
      searxngUrl: read('SEARXNG_URL')?.replace(/\/+$/, ''),
    },
    embedProvider: read('EMBED_PROVIDER') ?? 'openai',
    embedModel: values.EMBED_MODEL as string,
    moderationProvider: read('MODERATION_PROVIDER') ?? 'openai',
    moderationModel: values.MODERATION_MODEL as string,
  };
}

export const toolsSettings: SettingsArea = {
  name: 'tools',
  shape: toolsEnvShape,
  rows: [
    {
      vars: ['FRANKFURTER_BASE_URL'],
      default: '`https://api.frankfurter.dev/v1`',
      meaning: 'Frankfurter (or a self-hosted instance).',
    },
    {
      vars: ['HYPERLIQUID_BASE_URL'],
      default: '`https://api.hyperliquid.xyz`',
      meaning: "Hyperliquid's API (`/info` is appended).",
    },
    {
      vars: ['COINGECKO_BASE_URL'],
      default: '`https://api.coingecko.com/api/v3`',
      meaning: 'CoinGecko API v3.',
    },
    {
      vars: ['COINGECKO_API_KEY', 'COINGECKO_PRO'],
      default: 'none, `false`',
      meaning:
        "A demo key (`x-cg-demo-api-key`), or with `COINGECKO_PRO=true` a paid key (`x-cg-pro-api-key`, on `pro-api.coingecko.com` unless the base URL is overridden). Without a key the public tier's rate limit applies.",
    },
    {
      vars: ['DEFILLAMA_BASE_URL', 'DEFILLAMA_COINS_BASE_URL'],
      default: '`https://api.llama.fi`, `https://coins.llama.fi`',
      meaning: "DefiLlama's TVL and coin-price APIs.",
    },
    { vars: ['DEXSCREENER_BASE_URL'], default: '`https://api.dexscreener.com`', meaning: 'DexScreener.' },
    {
      vars: ['RPC_URLS'],
      default:
        'public nodes: `ethereum=https://ethereum-rpc.publicnode.com`, `base=https://mainnet.base.org`, `arbitrum=https://arb1.arbitrum.io/rpc`, `optimism=https://mainnet.optimism.io`, `bsc=https://bsc-dataseed.bnbchain.org`, `polygon=https://polygon-rpc.com`, `solana=https://api.mainnet-beta.solana.com`',
      meaning:
        '`chain=url,chain=url`: nodes for `rpc` and `gas-price`, over the defaults (a new name adds a chain to `rpc`). A long path segment (a provider key in the URL) is never echoed.',
    },
    {
      vars: ['RPC_ALLOW_SEND_RAW_TRANSACTION'],
      default: '`false`',
      meaning: 'Let `rpc` relay `eth_sendRawTransaction`.',
    },
    {
      vars: ['SEC_USER_AGENT'],
      default: '(stock tools off: 503)',
      meaning: 'The contact SEC requires, e.g. `Example Corp ops@example.com`.',
    },
    {
      vars: ['SEC_DATA_BASE_URL', 'SEC_WWW_BASE_URL'],
      default: '`https://data.sec.gov`, `https://www.sec.gov`',
      meaning: "EDGAR's two hosts (the ticker map and filing links are on www).",
    },
    {
      vars: ['RDAP_BOOTSTRAP_URL'],
      default: '`https://data.iana.org/rdap/dns.json`',
      meaning: "IANA's RDAP bootstrap file for domains.",
    },
    {
      vars: ['DNS_SERVERS'],
      default: "the system's resolvers",
      meaning: '`ip` or `ip:port`, comma-separated: resolvers for `domain-lookup`.',
    },
    {
      vars: [
        'BRAVE_API_KEY',
        'TAVILY_API_KEY',
        'EXA_API_KEY',
        'SEARXNG_URL',
        'BRAVE_BASE_URL',
        'TAVILY_BASE_URL',
        'EXA_BASE_URL',
      ],
      label: '`BRAVE_API_KEY`, `TAVILY_API_KEY`, `EXA_API_KEY`, `SEARXNG_URL`',
      default: '(search off: 503)',
      meaning:
        'Search providers; any one turns `search` on. `BRAVE_BASE_URL`, `TAVILY_BASE_URL`, `EXA_BASE_URL` override their hosts.',
    },
    {
      vars: ['SEARCH_PROVIDERS'],
      default: '`brave,tavily,exa,searxng`',
      meaning: 'The order providers are tried in.',
    },
    {
      vars: ['EMBED_PROVIDER', 'EMBED_MODEL'],
      default: '`openai`, `text-embedding-3-small`',
      meaning:
        'The provider (any chat provider name with an OpenAI-compatible `/embeddings`; its key and base URL as for chat) and model of `embed`.',
    },
    {
      vars: ['MODERATION_PROVIDER', 'MODERATION_MODEL'],
      default: '`openai`, `omni-moderation-latest`',
      meaning: 'The same for `moderate` (`/moderations`).',
    },
    {
      vars: ['TOOL_TIMEOUT_MS'],
      default: '`10000`',
      meaning: 'Time an upstream of a tool may take to answer (connect, headers, and between body chunks).',
    },
    {
      vars: ['TOOL_UPSTREAM_CONCURRENCY'],
      default: '`8`',
      meaning: 'Requests in flight at once per upstream.',
    },
  ],
};
