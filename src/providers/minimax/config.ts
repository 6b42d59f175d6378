/** MiniMax's settings as its adapter reads them: the bearer key; it answers the audio inline (hex), no file hosts. */
import type { ProviderConfig } from '../../config/providers.js';
import { originOf, type TrustedHosts } from '../../fetch/safe-fetch.js';

export function miniMaxHeaders(config: ProviderConfig): Record<string, string> {
  return { authorization: `Bearer ${config.apiKey ?? ''}` };
}

/** kasir always asks for hex audio in the answer, so only MiniMax's own host is trusted. */
export function miniMaxTrustedHosts(config: ProviderConfig): TrustedHosts {
  return { origin: originOf(config.baseUrl), cdnHosts: [] };
}
