// Contract: kasir's Runway adapter against the official `@runwayml/sdk` client, both driven against one local
// recording server; for each operation (text to video, image to video, read a task, cancel it) kasir's request
// matches the SDK's: method, path, auth header, X-Runway-Version, body fields.
import RunwayML from '@runwayml/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunwayProvider } from '../../src/providers/runway/provider.js';
import { type Recorder, startRecorder } from '../support/recorder.js';
import { adapterDeps, compareRequests, mediaCall, queueOf, TIMING } from './adapter-kit.js';

const KEY = 'key_contract';
const TASK = {
  id: '17f20503-6c24-4c16-946b-35dbbce2af2f',
  status: 'RUNNING',
  createdAt: '2026-11-25T00:00:00Z',
};

describe('Runway adapter ⇔ official @runwayml/sdk', () => {
  let rec: Recorder;
  let sdk: RunwayML;
  let kasir: ReturnType<typeof createRunwayProvider>;
  let close: () => Promise<void>;

  beforeAll(async () => {
    rec = await startRecorder((r) => (r.method === 'DELETE' ? { status: 204 } : { json: TASK }));
    sdk = new RunwayML({ apiKey: KEY, baseURL: rec.url, maxRetries: 0 });
    const deps = adapterDeps('runway', rec.url, KEY);
    kasir = createRunwayProvider(deps.config, deps.client, TIMING);
    close = deps.close;
  });
  afterAll(async () => {
    await close();
    await rec.close();
  });

  const versionMatches = (a: { headers: Record<string, unknown> }, b: { headers: Record<string, unknown> }) =>
    expect(b.headers['x-runway-version']).toBe(a.headers['x-runway-version']);

  it('creates a text-to-video task with the same body and version header', async () => {
    const input = { promptText: 'ombak di pantai Kuta', ratio: '1280:720', duration: 4 } as const;
    const { fromSdk, fromKasir } = await compareRequests(
      rec,
      () => sdk.textToVideo.create({ model: 'gen4.5', ...input }),
      () => queueOf(kasir).submit(mediaCall('gen4.5', 'video', { ...input })),
    );
    versionMatches(fromSdk, fromKasir);
    expect(fromKasir.json).toEqual(fromSdk.json);
  });

  it('creates an image-to-video task with the image as the same URL', async () => {
    const input = { ratio: '960:960', duration: 5, promptText: 'sawah' } as const;
    const promptImage = 'https://example.com/sawah.png';
    const { fromSdk, fromKasir } = await compareRequests(
      rec,
      () => sdk.imageToVideo.create({ model: 'gen4_turbo', promptImage, ...input }),
      () =>
        queueOf(kasir).submit(
          mediaCall('gen4_turbo', 'video', { ...input }, { promptImage: { kind: 'url', url: promptImage } }),
        ),
    );
    versionMatches(fromSdk, fromKasir);
    expect(fromKasir.json).toEqual(fromSdk.json);
  });

  it('reads and cancels a task at the same paths', async () => {
    const signal = mediaCall('x', 'video', {}).signal;
    const read = await compareRequests(
      rec,
      () => sdk.tasks.retrieve(TASK.id),
      () => queueOf(kasir).status({ id: TASK.id }, signal),
    );
    versionMatches(read.fromSdk, read.fromKasir);
    await compareRequests(
      rec,
      () => sdk.tasks.delete(TASK.id),
      () => queueOf(kasir).cancel({ id: TASK.id }, signal),
    );
  });
});
