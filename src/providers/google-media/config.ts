/**
 * Google's media settings as its adapter reads them (the Gemini API, GEMINI_API_KEY / GEMINI_BASE_URL): the
 * `x-goog-api-key` header, and its own host, from which Veo's videos are downloaded with that same key.
 */
import type { ProviderConfig } from '../../config/providers.js';
import { originOf, type TrustedHosts } from '../../fetch/safe-fetch.js';

export function googleHeaders(config: ProviderConfig): Record<string, string> {
  return { 'x-goog-api-key': config.apiKey ?? '' };
}

/** Imagen and Gemini answer images inline; Veo's video URIs are files on the API's own host. */
export function googleTrustedHosts(config: ProviderConfig): TrustedHosts {
  return { origin: originOf(config.baseUrl), cdnHosts: [] };
}
