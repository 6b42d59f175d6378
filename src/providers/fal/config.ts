/** fal's settings as its adapter reads them: the key header, and the hosts its result files come from. */
import type { ProviderConfig } from '../../config/providers.js';
import { originOf, type TrustedHosts } from '../../fetch/safe-fetch.js';

/** fal's CDN: files a model produces are served from fal.media and its subdomains (v3.fal.media, …). */
export const FAL_CDN_HOSTS = ['fal.media', '.fal.media'];

/** fal takes its key as `Authorization: Key <FAL_KEY>`. */
export function falHeaders(config: ProviderConfig): Record<string, string> {
  return { authorization: `Key ${config.apiKey ?? ''}` };
}

export function falTrustedHosts(config: ProviderConfig): TrustedHosts {
  return { origin: originOf(config.baseUrl), cdnHosts: FAL_CDN_HOSTS };
}
