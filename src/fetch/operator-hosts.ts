/**
 * The hosts the operator configured as upstreams (a *_BASE_URL they set, a node in RPC_URLS, SEARXNG_URL): kasir's
 * own calls to them skip the private-address rule, as a local SearXNG, chain node or Frankfurter is the operator's
 * own. Only URLs the operator set count (a built-in default is a public service and keeps the rule), and only for
 * the calls kasir makes to its configured upstreams: URLs a caller supplies go through the safe fetcher, whose
 * only exemption stays FETCH_ALLOWED_HOSTS.
 */

import { bareHost, hostPort } from '../config/fetch.js';
import type { Config } from '../config/load.js';
import { PROVIDER_ENV, type ProviderName } from '../config/providers.js';
import { DEFAULT_RPC_URLS, TOOL_UPSTREAMS, type ToolUpstreamName } from '../config/tools.js';

/** `host:port` of a URL, as FETCH_ALLOWED_HOSTS writes it; undefined for a URL that does not parse. */
function hostPortOf(url: string): string | undefined {
  if (!URL.canParse(url)) return undefined;
  const u = new URL(url);
  const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
  return hostPort(bareHost(u.hostname), port);
}

export function operatorHosts(config: Pick<Config, 'tools' | 'providers'>): Set<string> {
  const urls: string[] = [];
  const { tools } = config;
  for (const [name, url] of Object.entries(tools.baseUrls) as Array<[ToolUpstreamName, string]>) {
    if (url !== TOOL_UPSTREAMS[name].default.replace(/\/+$/, '')) urls.push(url);
  }
  for (const [chain, url] of Object.entries(tools.rpcUrls))
    if (DEFAULT_RPC_URLS[chain] !== url) urls.push(url);
  if (tools.search.searxngUrl) urls.push(tools.search.searxngUrl);
  for (const [name, settings] of Object.entries(config.providers) as Array<
    [ProviderName, { baseUrl: string }]
  >) {
    if (settings.baseUrl && settings.baseUrl !== PROVIDER_ENV[name].defaultBaseUrl)
      urls.push(settings.baseUrl);
  }
  return new Set(urls.flatMap((u) => hostPortOf(u) ?? []));
}
