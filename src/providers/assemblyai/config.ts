/** AssemblyAI's settings as its adapter reads them: the key, sent bare in `authorization`; it answers text only. */
import type { ProviderConfig } from '../../config/providers.js';
import { originOf, type TrustedHosts } from '../../fetch/safe-fetch.js';

export function assemblyAiHeaders(config: ProviderConfig): Record<string, string> {
  return { authorization: config.apiKey ?? '' };
}

/** A transcript is JSON, never a file to download: only its own host is trusted. */
export function assemblyAiTrustedHosts(config: ProviderConfig): TrustedHosts {
  return { origin: originOf(config.baseUrl), cdnHosts: [] };
}
