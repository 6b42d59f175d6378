/** Every data tool's fake upstream at once, and the settings that point kasir at them (for suites across routes). */
import type { RawEnv } from '../../src/config/config-file.js';
import { startFakeCoinGecko } from '../fakes/coingecko.js';
import { startFakeDefiLlama, startFakeDefiLlamaCoins } from '../fakes/defillama.js';
import { startFakeDexScreener } from '../fakes/dexscreener.js';
import { startFakeDns } from '../fakes/dns-server.js';
import { startFakeFrankfurter } from '../fakes/frankfurter.js';
import { startFakeHyperliquid } from '../fakes/hyperliquid.js';
import { startFakeRpcNode } from '../fakes/json-rpc-node.js';
import type { FakeJsonUpstream } from '../fakes/json-upstream.js';
import { startFakeOpenAiText } from '../fakes/openai-text.js';
import { startFakeRdap } from '../fakes/rdap.js';
import { startFakeBrave, startFakeSearxng } from '../fakes/search-providers.js';
import { startFakeSecEdgar } from '../fakes/sec-edgar.js';
import { TOOL_TEST_TIMEOUT_MS } from './tool-kit.js';

export interface ToolFakes {
  env: RawEnv;
  close(): Promise<void>;
}

export async function startToolFakes(): Promise<ToolFakes> {
  const started: FakeJsonUpstream[] = [];
  const start = async (fake: Promise<FakeJsonUpstream>) => {
    const f = await fake;
    started.push(f);
    return f.url;
  };
  const env: RawEnv = {
    TOOL_TIMEOUT_MS: String(TOOL_TEST_TIMEOUT_MS * 5),
    FRANKFURTER_BASE_URL: await start(startFakeFrankfurter()),
    HYPERLIQUID_BASE_URL: await start(startFakeHyperliquid()),
    DEFILLAMA_BASE_URL: await start(startFakeDefiLlama()),
    DEFILLAMA_COINS_BASE_URL: await start(startFakeDefiLlamaCoins()),
    DEXSCREENER_BASE_URL: await start(startFakeDexScreener()),
    COINGECKO_BASE_URL: await start(startFakeCoinGecko()),
    BRAVE_API_KEY: 'brave-key',
    BRAVE_BASE_URL: await start(startFakeBrave('brave-key')),
    SEARXNG_URL: await start(startFakeSearxng()),
    TOGETHER_API_KEY: 'together-key',
    TOGETHER_BASE_URL: await start(startFakeOpenAiText('together-key')),
    EMBED_PROVIDER: 'together',
    MODERATION_PROVIDER: 'together',
    SEC_USER_AGENT: 'Kasir Test ops@example.com',
  };
  env.SEC_DATA_BASE_URL = env.SEC_WWW_BASE_URL = await start(startFakeSecEdgar());
  const rdap = await startFakeRdap();
  started.push(rdap);
  env.RDAP_BOOTSTRAP_URL = rdap.bootstrapUrl;
  const dns = await startFakeDns({
    'example.com': {
      A: ['93.184.215.14'],
      MX: [{ preference: 10, exchange: 'mx.example.com' }],
      TXT: ['v=spf1 -all'],
    },
    '_dmarc.example.com': { TXT: ['v=DMARC1; p=none'] },
  });
  env.DNS_SERVERS = dns.server;
  const node = await start(startFakeRpcNode());
  env.RPC_URLS = ['ethereum', 'base', 'arbitrum', 'optimism', 'bsc', 'polygon', 'solana']
    .map((chain) => `${chain}=${node}/${chain}`)
    .join(',');
  return {
    env,
    close: async () => {
      await Promise.all([...started.map((f) => f.close()), dns.close()]);
    },
  };
}
