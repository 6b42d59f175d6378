/** The fal adapter: every fal model through its queue (submit, status, result, cancel) at FAL_BASE_URL. */
import type { ProviderConfig } from '../../config/providers.js';
import { type PollTiming, queuedProvider } from '../media/queue.js';
import type { MediaProvider, MediaQueue } from '../media/types.js';
import type { UpstreamClient } from '../upstream-client.js';
import { falHeaders, falTrustedHosts } from './config.js';
import { falAppId, falBody } from './request.js';
import { falHandle, falOutput, falState } from './response.js';

export function createFalProvider(
  config: ProviderConfig,
  client: UpstreamClient,
  timing: PollTiming,
): MediaProvider {
  const headers = falHeaders(config);
  const base = new URL(config.baseUrl);
  const path = (handle: Record<string, unknown>, key: string) => String(handle[key]);
  const queue: MediaQueue = {
    async submit(call) {
      const answer = await client.postJson(`/${call.endpoint}`, falBody(call), headers, call.signal);
      return { ...falHandle(answer, base, falAppId(call.endpoint)), produces: call.produces };
    },
    async status(handle, signal) {
      return falState(await client.getJson(path(handle, 'status'), headers, signal));
    },
    async result(handle, signal) {
      return falOutput(
        await client.getJson(path(handle, 'result'), headers, signal),
        String(handle.produces),
      );
    },
    async cancel(handle, signal) {
      await client.putEmpty(path(handle, 'cancel'), headers, signal);
    },
  };
  return queuedProvider('fal', config, queue, timing, {
    fileInputs: 'url',
    trusted: falTrustedHosts(config),
  });
}
