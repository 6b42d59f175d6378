// Contract: kasir's fal adapter against the official `@fal-ai/client`, both driven against one local recording
// server (the SDK's requests re-pointed from queue.fal.run by its own request middleware); for each queue operation
// (submit, status, result, cancel) kasir's request matches the SDK's: method, path, auth header, body fields.
import { createFalClient } from '@fal-ai/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFalProvider } from '../../src/providers/fal/provider.js';
import { pathOf, type Recorder, startRecorder } from '../support/recorder.js';
import { adapterDeps, compareRequests, mediaCall, queueOf, TIMING } from './adapter-kit.js';

const KEY = 'fal-key-id:fal-key-secret';
const ID = '0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

describe('fal adapter ⇔ official @fal-ai/client', () => {
  let rec: Recorder;
  let sdk: ReturnType<typeof createFalClient>;
  let kasir: ReturnType<typeof createFalProvider>;
  let close: () => Promise<void>;

  beforeAll(async () => {
    rec = await startRecorder((r) => {
      const root = `${rec.url}/fal-ai/flux/requests/${ID}`;
      const path = pathOf(r);
      if (r.method === 'PUT') return { status: 202, json: { status: 'CANCELLATION_REQUESTED' } };
      if (path.endsWith('/status')) return { json: { status: 'COMPLETED', response_url: root, logs: null } };
      if (path.includes('/requests/'))
        return { json: { images: [{ url: 'https://v3.fal.media/files/x.png', content_type: 'image/png' }] } };
      return {
        json: {
          request_id: ID,
          response_url: root,
          status_url: `${root}/status`,
          cancel_url: `${root}/cancel`,
          queue_position: 0,
        },
      };
    });
    sdk = createFalClient({
      credentials: KEY,
      requestMiddleware: async (request) => ({
        ...request,
        url: request.url.replace(/^https:\/\/queue\.fal\.run/, rec.url),
      }),
    });
    const deps = adapterDeps('fal', rec.url, KEY);
    kasir = createFalProvider(deps.config, deps.client, TIMING);
    close = deps.close;
  });
  afterAll(async () => {
    await close();
    await rec.close();
  });

  it('submits to the queue with the same body', async () => {
    const input = { prompt: 'a teapot', num_images: 2, image_size: 'square_hd' as const };
    const { fromSdk, fromKasir } = await compareRequests(
      rec,
      () => sdk.queue.submit('fal-ai/flux/schnell', { input }),
      () => queueOf(kasir).submit(mediaCall('fal-ai/flux/schnell', 'image', { ...input })),
    );
    expect(pathOf(fromSdk)).toBe('/fal-ai/flux/schnell');
    expect(fromKasir.json).toEqual(fromSdk.json);
  });

  it('reads the status and the result, and cancels, at the same paths', async () => {
    const signal = mediaCall('x', 'image', {}).signal;
    const handle = await queueOf(kasir).submit(mediaCall('fal-ai/flux/schnell', 'image', { prompt: 'x' }));
    await compareRequests(
      rec,
      () => sdk.queue.status('fal-ai/flux/schnell', { requestId: ID }),
      () => queueOf(kasir).status(handle, signal),
    );
    await compareRequests(
      rec,
      () => sdk.queue.result('fal-ai/flux/schnell', { requestId: ID }),
      () => queueOf(kasir).result(handle, signal),
    );
    await compareRequests(
      rec,
      () => sdk.queue.cancel('fal-ai/flux/schnell', { requestId: ID }),
      () => queueOf(kasir).cancel(handle, signal),
    );
  });
});
