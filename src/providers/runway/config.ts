/**
 * Runway's settings as its adapter reads them: the bearer secret and the API version header, and the host its
 * task outputs come from.
 */
import type { ProviderConfig } from '../../config/providers.js';
import { originOf, type TrustedHosts } from '../../fetch/safe-fetch.js';

/** The API version this adapter speaks (Runway requires the header on every request). */
export const RUNWAY_API_VERSION = '2024-11-06';

/**
 * Task outputs are ephemeral signed URLs on Runway's own CloudFront distribution (its API docs show
 * `dnznrvs05pmza.cloudfront.net`). Only that distribution is trusted, never `cloudfront.net` as a whole, which
 * anyone can serve from.
 */
export const RUNWAY_CDN_HOSTS = ['dnznrvs05pmza.cloudfront.net'];

export function runwayHeaders(config: ProviderConfig): Record<string, string> {
  return { authorization: `Bearer ${config.apiKey ?? ''}`, 'x-runway-version': RUNWAY_API_VERSION };
}

export function runwayTrustedHosts(config: ProviderConfig): TrustedHosts {
  return { origin: originOf(config.baseUrl), cdnHosts: RUNWAY_CDN_HOSTS };
}
