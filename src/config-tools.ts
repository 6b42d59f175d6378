/**
 * Settings of the paid data tools (tools/exchange-rate, tools/rpc, …): each upstream's base URL (defaulting to the
 * public service), the keys of those that need one, the operator's JSON-RPC nodes and the SEC contact.
 */
import { z } from 'zod';

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

const optional = z
  .string()
  .optional()
  .transform((v) => (v === '' ? undefined : v));
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .default('false')
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

export const toolsEnvShape = {
  ...Object.fromEntries(Object.values(TOOL_UPSTREAMS).map((u) => [u.env, z.url().optional()])),
  TOOL_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  TOOL_UPSTREAM_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  COINGECKO_API_KEY: optional,
  COINGECKO_PRO: bool,
  SEC_USER_AGENT: optional,
  RPC_URLS: optional,
  RPC_ALLOW_SEND_RAW_TRANSACTION: bool,
  DNS_SERVERS: optional,
  BRAVE_API_KEY: optional,
  TAVILY_API_KEY: optional,
  EXA_API_KEY: optional,
  SEARXNG_URL: z.url().optional(),
  SEARCH_PROVIDERS: optional,
  EMBED_PROVIDER: optional,
  MODERATION_PROVIDER: optional,
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
