/**
 * The Google media adapters (the Gemini API at GEMINI_BASE_URL): Imagen and Gemini image models answer within one
 * exchange; Veo runs as a long-running operation, submitted with `:predictLongRunning` and polled at
 * `GET /v1beta/{operation name}`. The Gemini API offers no cancel for Veo operations, so that queue has none.
 */
import type { ProviderConfig } from '../../config/providers.js';
import { providerBase } from '../media/base.js';
import { type PollTiming, queuedProvider } from '../media/queue.js';
import type { MediaProvider, MediaQueue } from '../media/types.js';
import type { UpstreamClient } from '../upstream-client.js';
import { googleHeaders, googleTrustedHosts } from './config.js';
import { familyOf, googleRefusal, googleRequest } from './request.js';
import { geminiImages, imagenImages, operation, operationState, operationVideos } from './response.js';

/** Imagen and the Gemini image models: one exchange each, images answered inline. */
export function createGoogleImageProvider(config: ProviderConfig, client: UpstreamClient): MediaProvider {
  const headers = googleHeaders(config);
  return {
    ...providerBase('google', config, 'bytes', googleTrustedHosts(config)),
    async run(call) {
      const { path, body } = googleRequest(call);
      const answer = await client.postJson(path, body, headers, call.signal);
      return familyOf(call.endpoint) === 'imagen' ? imagenImages(answer) : geminiImages(answer);
    },
  };
}

/** Veo: a long-running operation, so its calls can also run as async jobs. */
export function createGoogleVideoProvider(
  config: ProviderConfig,
  client: UpstreamClient,
  timing: PollTiming,
): MediaProvider {
  const headers = googleHeaders(config);
  const read = async (handle: Record<string, unknown>, signal: Parameters<MediaQueue['status']>[1]) =>
    operation(await client.getJson(`/v1beta/${String(handle.name)}`, headers, signal));
  const queue: MediaQueue = {
    async submit(call) {
      const { path, body } = googleRequest(call);
      return { name: operation(await client.postJson(path, body, headers, call.signal)).name };
    },
    async status(handle, signal) {
      return operationState(await read(handle, signal));
    },
    async result(handle, signal) {
      return operationVideos(await read(handle, signal), headers);
    },
  };
  return {
    ...queuedProvider('google', config, queue, timing, {
      fileInputs: 'bytes',
      trusted: googleTrustedHosts(config),
    }),
    refuse: googleRefusal,
  };
}
