/** The Deepgram adapter: pre-recorded transcription at DEEPGRAM_BASE_URL, answered within one exchange. */
import type { ProviderConfig } from '../../config/providers.js';
import { providerBase } from '../media/base.js';
import type { MediaProvider } from '../media/types.js';
import type { UpstreamClient } from '../upstream-client.js';
import { deepgramHeaders, deepgramTrustedHosts } from './config.js';
import { listenBody, listenPath } from './request.js';
import { deepgramTranscript } from './response.js';

/** A transcript with word timings of two hours of speech stays well under this. */
const TRANSCRIPT_LIMIT = 32 * 1024 * 1024;

export function createDeepgramProvider(config: ProviderConfig, client: UpstreamClient): MediaProvider {
  const headers = deepgramHeaders(config);
  return {
    ...providerBase('deepgram', config, 'url', deepgramTrustedHosts(config)),
    async run(call) {
      const parsed = await client.postForJson(
        listenPath(call),
        listenBody(call),
        headers,
        call.signal,
        TRANSCRIPT_LIMIT,
      );
      return deepgramTranscript(parsed);
    },
  };
}
