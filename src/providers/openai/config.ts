/** OpenAI's media settings as its adapter reads them: the bearer key, and the hosts its result files come from. */
import type { ProviderConfig } from '../../config/providers.js';
import { originOf, type TrustedHosts } from '../../fetch/safe-fetch.js';

/** Image URLs (DALL·E's `response_format: url`) are served from OpenAI's blob storage. */
export const OPENAI_CDN_HOSTS = ['oaidalleapiprodscus.blob.core.windows.net'];

export function openAiHeaders(config: ProviderConfig): Record<string, string> {
  return { authorization: `Bearer ${config.apiKey ?? ''}` };
}

export function openAiTrustedHosts(config: ProviderConfig): TrustedHosts {
  return { origin: originOf(config.baseUrl), cdnHosts: OPENAI_CDN_HOSTS };
}

/** The largest audio answer read from /audio/speech (4,096 characters of WAV is about 15 MB). */
export const SPEECH_ANSWER_LIMIT = 64 * 1024 * 1024;
