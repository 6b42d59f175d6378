/** ElevenLabs' settings as its adapter reads them: the `xi-api-key` header; its answers carry the audio itself. */
import type { ProviderConfig } from '../../config/providers.js';
import { originOf, type TrustedHosts } from '../../fetch/safe-fetch.js';

export function elevenLabsHeaders(config: ProviderConfig): Record<string, string> {
  return { 'xi-api-key': config.apiKey ?? '' };
}

/** ElevenLabs answers with bytes, never with file URLs: only its own host is trusted. */
export function elevenLabsTrustedHosts(config: ProviderConfig): TrustedHosts {
  return { origin: originOf(config.baseUrl), cdnHosts: [] };
}

/** The largest audio answer read (ten minutes of music at 192 kb/s is about 15 MB). */
export const AUDIO_ANSWER_LIMIT = 128 * 1024 * 1024;
