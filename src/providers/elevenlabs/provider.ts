/** The ElevenLabs adapter: text-to-speech, music and speech-to-text at ELEVENLABS_BASE_URL (one exchange each). */
import type { ProviderConfig } from '../../config/providers.js';
import { providerBase } from '../media/base.js';
import type { MediaProvider } from '../media/types.js';
import type { UpstreamClient } from '../upstream-client.js';
import { AUDIO_ANSWER_LIMIT, elevenLabsHeaders, elevenLabsTrustedHosts } from './config.js';
import { elevenLabsJson, elevenLabsTranscription } from './request.js';
import { elevenLabsAudio, elevenLabsTranscript } from './response.js';

/** A transcription answer (words with timings included) stays well under this. */
const TRANSCRIPT_LIMIT = 32 * 1024 * 1024;

export function createElevenLabsProvider(config: ProviderConfig, client: UpstreamClient): MediaProvider {
  const headers = elevenLabsHeaders(config);
  return {
    ...providerBase('elevenlabs', config, 'bytes', elevenLabsTrustedHosts(config)),
    async run(call) {
      if (call.produces === 'text' || call.produces === 'json') {
        const body = await elevenLabsTranscription(call);
        const parsed = await client.postForJson(
          '/v1/speech-to-text',
          body,
          headers,
          call.signal,
          TRANSCRIPT_LIMIT,
        );
        return elevenLabsTranscript(parsed);
      }
      const kind = call.endpoint.startsWith('music') ? 'music' : 'speech';
      const { path, body } = elevenLabsJson(call, kind);
      const json = { contentType: 'application/json', bytes: JSON.stringify(body) };
      const answer = await client.postForBytes(path, json, headers, call.signal, AUDIO_ANSWER_LIMIT);
      return elevenLabsAudio(answer, call.input.output_format);
    },
  };
}
