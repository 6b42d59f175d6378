/** Deepgram's settings as its adapter reads them: `Authorization: Token <key>`; it answers JSON only. */
import type { ProviderConfig } from '../../config/providers.js';
import { originOf, type TrustedHosts } from '../../fetch/safe-fetch.js';

export function deepgramHeaders(config: ProviderConfig): Record<string, string> {
  return { authorization: `Token ${config.apiKey ?? ''}` };
}

/** A transcript is JSON, never a file to download: only its own host is trusted. */
export function deepgramTrustedHosts(config: ProviderConfig): TrustedHosts {
  return { origin: originOf(config.baseUrl), cdnHosts: [] };
}
