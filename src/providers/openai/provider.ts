/**
 * The OpenAI media adapters at OPENAI_BASE_URL: images, text-to-speech and transcriptions answer within one exchange;
 * Sora's videos run as a queue (`POST /videos`, `GET /videos/{id}` polled with backoff, the MP4 downloaded from
 * `GET /videos/{id}/content`).
 */
import type { ProviderConfig } from '../../config/providers.js';
import { UpstreamError } from '../../http/upstream-error.js';
import { providerBase } from '../media/base.js';
import { type PollTiming, queuedProvider } from '../media/queue.js';
import type { MediaProvider, MediaQueue } from '../media/types.js';
import type { UpstreamClient } from '../upstream-client.js';
import { openAiHeaders, openAiTrustedHosts, SPEECH_ANSWER_LIMIT } from './config.js';
import { openAiJsonBody, transcriptionBody, videoBody } from './request.js';
import { openAiImages, openAiSpeech, openAiTranscription } from './response.js';
import { video, videoContent, videoState } from './video.js';

/** The transcription answer is JSON or text of a few MB at most. */
const TRANSCRIPT_LIMIT = 16 * 1024 * 1024;
/** The answer to a video's creation is its small JSON object. */
const VIDEO_ANSWER_LIMIT = 64 * 1024;

export function createOpenAiMediaProvider(config: ProviderConfig, client: UpstreamClient): MediaProvider {
  const headers = openAiHeaders(config);
  return {
    ...providerBase('openai', config, 'bytes', openAiTrustedHosts(config)),
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
          // Videos run on the videos adapter below; the registry never sends them here.
          throw new UpstreamError(
            'not_configured',
            `openai's ${call.produces} models run on another adapter`,
          );
      }
    },
  };
}

/**
 * Sora: a video is created (multipart/form-data), polled until `completed` or `failed`, and its MP4 read from the
 * content endpoint. OpenAI documents no cancel for a video in progress; `DELETE /videos/{id}` (documented for a
 * completed or failed video, removing it and its files) is sent for a call given up, best effort.
 */
export function createOpenAiVideoProvider(
  config: ProviderConfig,
  client: UpstreamClient,
  timing: PollTiming,
): MediaProvider {
  const headers = openAiHeaders(config);
  const path = (handle: Record<string, unknown>) => `/videos/${encodeURIComponent(String(handle.id))}`;
  const queue: MediaQueue = {
    async submit(call) {
      const body = await videoBody(call);
      const created = await client.postForJson('/videos', body, headers, call.signal, VIDEO_ANSWER_LIMIT);
      return { id: video(created).id };
    },
    async status(handle, signal) {
      return videoState(video(await client.getJson(path(handle), headers, signal)));
    },
    async result(handle) {
      return videoContent(String(handle.id), config.baseUrl, headers);
    },
    async cancel(handle, signal) {
      await client.deleteResource(path(handle), headers, signal);
    },
  };
  return queuedProvider('openai', config, queue, timing, {
    fileInputs: 'bytes',
    trusted: openAiTrustedHosts(config),
  });
}
