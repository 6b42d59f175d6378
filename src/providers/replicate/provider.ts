/**
 * The Replicate adapter: official models' predictions at REPLICATE_BASE_URL. A synchronous call creates the
 * prediction with `Prefer: wait` (Replicate holds the answer until the prediction ends, up to a minute) and polls
 * only if it is still running; an async job creates it without waiting. `GET /v1/predictions/{id}` reads it,
 * `POST /v1/predictions/{id}/cancel` stops it.
 */
import type { ProviderConfig } from '../../config/providers.js';
import { providerBase } from '../media/base.js';
import { awaitQueued, type PollTiming, withReadRetries } from '../media/queue.js';
import type { MediaProvider, MediaQueue } from '../media/types.js';
import type { UpstreamClient } from '../upstream-client.js';
import { replicateHeaders, replicateTrustedHosts } from './config.js';
import { predictionBody, predictionPath } from './request.js';
import { prediction, predictionOutput, predictionState } from './response.js';

export function createReplicateProvider(
  config: ProviderConfig,
  client: UpstreamClient,
  timing: PollTiming,
): MediaProvider {
  const headers = replicateHeaders(config);
  const read = async (handle: Record<string, unknown>, signal: Parameters<MediaQueue['status']>[1]) =>
    prediction(await client.getJson(`/v1/predictions/${String(handle.id)}`, headers, signal));
  const predictions: MediaQueue = {
    async submit(call) {
      const created = prediction(
        await client.postJson(predictionPath(call.endpoint), predictionBody(call), headers, call.signal),
      );
      return { id: created.id, produces: call.produces };
    },
    async status(handle, signal) {
      return predictionState(await read(handle, signal));
    },
    async result(handle, signal) {
      return predictionOutput(await read(handle, signal), String(handle.produces));
    },
    async cancel(handle, signal) {
      await client.postJson(`/v1/predictions/${String(handle.id)}/cancel`, {}, headers, signal);
    },
  };
  const queue = withReadRetries(predictions, timing, 'replicate');
  return {
    ...providerBase('replicate', config, 'url', replicateTrustedHosts(config)),
    queue,
    async run(call) {
      const created = prediction(
        await client.postJson(
          predictionPath(call.endpoint),
          predictionBody(call),
          { ...headers, prefer: 'wait' },
          call.signal,
        ),
      );
      const handle = { id: created.id, produces: call.produces };
      // Finished within the wait: its answer already holds the output.
      if (created.status === 'succeeded') return predictionOutput(created, call.produces);
      return awaitQueued(queue, handle, call.signal, timing, 'replicate');
    },
  };
}
