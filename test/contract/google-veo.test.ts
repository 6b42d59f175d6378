// Contract: kasir's Veo adapter against the official `@google/genai` client (Gemini API mode, API key), both driven
// against one local recording server; generating a video with reference images, and reading its operation, send
// the same method, path, `x-goog-api-key` and body. The SDK also refuses `seed` on the Gemini API, as kasir does
// before payment.
import { GoogleGenAI, VideoGenerationReferenceType } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGoogleVideoProvider } from '../../src/providers/google-media/provider.js';
import { googleRefusal } from '../../src/providers/google-media/request.js';
import { type Recorder, startRecorder } from '../support/recorder.js';
import { adapterDeps, compareRequests, mediaCall, TIMING } from './adapter-kit.js';

const KEY = 'goog-contract';
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const OPERATION = 'models/veo-3.1-generate-preview/operations/op123';

describe('Veo adapter ⇔ official @google/genai', () => {
  let rec: Recorder;
  let sdk: GoogleGenAI;
  let kasir: ReturnType<typeof createGoogleVideoProvider>;
  let close: () => Promise<void>;

  beforeAll(async () => {
    rec = await startRecorder(() => ({ json: { name: OPERATION, done: false } }));
    sdk = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: rec.url } });
    const deps = adapterDeps('google', rec.url, KEY);
    kasir = createGoogleVideoProvider(deps.config, deps.client, TIMING);
    close = deps.close;
  });
  afterAll(async () => {
    await close();
    await rec.close();
  });

  it('submits a video with reference images: same path, key header and body (referenceType ASSET)', async () => {
    const queue = kasir.queue;
    if (!queue) throw new Error('Veo runs as a queue');
    const { fromSdk, fromKasir } = await compareRequests(
      rec,
      () =>
        sdk.models.generateVideos({
          model: 'veo-3.1-generate-preview',
          prompt: 'batik',
          config: {
            aspectRatio: '16:9',
            durationSeconds: 8,
            referenceImages: [
              {
                image: { imageBytes: PNG.toString('base64'), mimeType: 'image/png' },
                referenceType: VideoGenerationReferenceType.ASSET,
              },
            ],
          },
        }),
      () =>
        queue.submit(
          mediaCall(
            'veo-3.1-generate-preview',
            'video',
            { prompt: 'batik', aspectRatio: '16:9', durationSeconds: 8 },
            { referenceImages: [{ kind: 'bytes', bytes: PNG, contentType: 'image/png' }] },
          ),
        ),
      'x-goog-api-key',
    );
    expect(fromKasir.json).toEqual(fromSdk.json);
  });

  it('reads the operation at the same path', async () => {
    const queue = kasir.queue;
    if (!queue) throw new Error('Veo runs as a queue');
    await compareRequests(
      rec,
      () => sdk.operations.getVideosOperation({ operation: { name: OPERATION } as never }),
      () => queue.status({ name: OPERATION }, mediaCall('x', 'video', {}).signal),
      'x-goog-api-key',
    );
  });

  it('refuses seed as the SDK does on the Gemini API', async () => {
    await expect(
      sdk.models.generateVideos({ model: 'veo-3.1-generate-preview', prompt: 'x', config: { seed: 7 } }),
    ).rejects.toThrow(/seed parameter is not supported in Gemini API/);
    expect(googleRefusal('veo-3.1-generate-preview', { prompt: 'x', seed: 7 })?.field).toBe('seed');
  });
});
