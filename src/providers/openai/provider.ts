/** The OpenAI media adapter: images, text-to-speech and transcriptions at OPENAI_BASE_URL (one exchange each). */
import { PROVIDER_ENV, type ProviderConfig } from '../../config.js';
import type { UpstreamClient } from '../http.js';
import type { MediaProvider } from '../media/types.js';
import { UpstreamError } from '../types.js';
import { openAiHeaders, openAiTrustedHosts, SPEECH_ANSWER_LIMIT } from './config.js';
import { openAiJsonBody, transcriptionBody } from './request.js';
import { openAiImages, openAiSpeech, openAiTranscription } from './response.js';

/** The transcription answer is JSON or text of a few MB at most. */
const TRANSCRIPT_LIMIT = 16 * 1024 * 1024;

export function createOpenAiMediaProvider(config: ProviderConfig, client: UpstreamClient): MediaProvider {
  const headers = openAiHeaders(config);
  return {
    name: 'openai',
    fileInputs: 'bytes',
    trusted: openAiTrustedHosts(config),
    missing: config.apiKey ? null : PROVIDER_ENV.openai.key,
    async run(call) {
      switch (call.produces) {
        case 'image': {
          const answer = await client.postJson(
            '/images/generations',
            openAiJsonBody(call),
            headers,
            call.signal,
          );
          return openAiImages(answer, call.input.output_format);
        }
        case 'audio': {
          const body = { contentType: 'application/json', bytes: JSON.stringify(openAiJsonBody(call)) };
          const answer = await client.postForBytes(
            '/audio/speech',
            body,
            headers,
            call.signal,
            SPEECH_ANSWER_LIMIT,
          );
          return openAiSpeech(answer, call.input.response_format);
        }
        case 'text':
        case 'json': {
          const body = await transcriptionBody(call);
          const answer = await client.postForBytes(
            '/audio/transcriptions',
            body,
            headers,
            call.signal,
            TRANSCRIPT_LIMIT,
          );
          return openAiTranscription(answer);
        }
        default:
          throw new UpstreamError(
            'not_configured',
            `openai's ${call.produces} models have no adapter in kasir yet`,
          );
      }
    },
  };
}

/** Whether this adapter runs a model producing `produces` (OpenAI's video, Sora, has none yet). */
export function openAiRuns(produces: string): boolean {
  return produces !== 'video';
}
