/** Replicate's settings as its adapter reads them: the bearer token, and the hosts its output files come from. */
import type { ProviderConfig } from '../../config/providers.js';
import { originOf, type TrustedHosts } from '../../fetch/safe-fetch.js';

/** Prediction outputs are served from replicate.delivery and its subdomains. */
export const REPLICATE_CDN_HOSTS = ['replicate.delivery', '.replicate.delivery'];

export function replicateHeaders(config: ProviderConfig): Record<string, string> {
  return { authorization: `Bearer ${config.apiKey ?? ''}` };
}

export function replicateTrustedHosts(config: ProviderConfig): TrustedHosts {
  return { origin: originOf(config.baseUrl), cdnHosts: REPLICATE_CDN_HOSTS };
}
