/**
 * The Runway adapter: video generation tasks at RUNWAY_BASE_URL. Submitting creates the task (text, image or
 * video to video), `GET /v1/tasks/{id}` is polled with backoff, and `DELETE /v1/tasks/{id}` cancels a task given up.
 */
import type { ProviderConfig } from '../../config/providers.js';
import { type PollTiming, queuedProvider } from '../media/queue.js';
import type { MediaProvider, MediaQueue } from '../media/types.js';
import type { UpstreamClient } from '../upstream-client.js';
import { runwayHeaders, runwayTrustedHosts } from './config.js';
import { runwayRefusal, taskRequest } from './request.js';
import { task, taskOutput, taskState } from './response.js';

export function createRunwayProvider(
  config: ProviderConfig,
  client: UpstreamClient,
  timing: PollTiming,
): MediaProvider {
  const headers = runwayHeaders(config);
  const read = async (handle: Record<string, unknown>, signal: Parameters<MediaQueue['status']>[1]) =>
    task(await client.getJson(`/v1/tasks/${String(handle.id)}`, headers, signal));
  const queue: MediaQueue = {
    async submit(call) {
      const { path, body } = taskRequest(call);
      return { id: task(await client.postJson(path, body, headers, call.signal)).id };
    },
    async status(handle, signal) {
      return taskState(await read(handle, signal));
    },
    async result(handle, signal) {
      return taskOutput(await read(handle, signal));
    },
    async cancel(handle, signal) {
      await client.deleteResource(`/v1/tasks/${String(handle.id)}`, headers, signal);
    },
  };
  return {
    ...queuedProvider('runway', config, queue, timing, {
      fileInputs: 'url',
      trusted: runwayTrustedHosts(config),
    }),
    refuse: runwayRefusal,
  };
}
