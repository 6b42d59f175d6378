// Google's media models end to end on each database (a local fake of the Gemini API): Imagen and Gemini images
// answered inline, Veo's long-running operation polled and its video downloaded with the key, every file re-hosted
// byte for byte and charged the quote; bad input, safety refusals, failed operations and upstream errors charged
// nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeGoogleMedia, startFakeGoogleMedia } from '../fakes/google-media-upstream.js';
import { DB_TARGETS } from '../support/app.js';
import { type PaidKasir, startPaidKasir } from '../support/paid.js';
import { expectQuoteCharged, hostedBytes, postPaid } from '../support/paid-call.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const PNG_URI = `data:image/png;base64,${PNG.toString('base64')}`;

describe.each(DB_TARGETS)('Google media models on %s', (db) => {
  let kasir: PaidKasir;
  let google: FakeGoogleMedia;
  let key: string;
  let accountId: string;

  beforeAll(async () => {
    google = await startFakeGoogleMedia({ apiKey: 'goog-media' });
    kasir = await startPaidKasir(db, {
      GEMINI_API_KEY: 'goog-media',
      GEMINI_BASE_URL: google.url,
      MEDIA_WAIT_MS: '1500',
    });
    ({ key, accountId } = await kasir.fundedKey(50_000_000));
  });
  afterAll(async () => {
    await kasir.stop();
    await google.close();
  });

  type Media = { url: string; contentType: string; sizeBytes: number };
  const post = (path: string, body: Record<string, unknown>) =>
    postPaid<{
      costMicroUsd?: number;
      output?: Media & { files?: Media[] };
      error?: { param?: string };
    }>(kasir, key, path, body);
  const bytesAt = (url: string) => hostedBytes(kasir, url);

  it('generates Imagen images inline, each re-hosted, charged per image', async () => {
    const body = {
      model: 'google/imagen-4',
      prompt: 'candi Borobudur at dawn',
      sampleCount: 2,
      aspectRatio: '16:9',
    };
    const answer = await post('/v1/images/generations', body);
    expectQuoteCharged(kasir, answer, body);
    expect(google.requests.at(-1)).toEqual({
      path: '/v1beta/models/imagen-4.0-generate-001:predict',
      body: {
        instances: [{ prompt: 'candi Borobudur at dawn' }],
        parameters: { sampleCount: 2, aspectRatio: '16:9', imageSize: '1K', personGeneration: 'allow_adult' },
      },
    });
    const files = answer.json.output?.files ?? [];
    expect(files).toHaveLength(2);
    const made = google.produced.slice(-2);
    for (const [i, file] of files.entries())
      expect((await bytesAt(file.url)).equals(made[i] ?? Buffer.alloc(0))).toBe(true);
  });

  it('generates a Gemini image with a reference image as an inline part', async () => {
    const body = {
      model: 'google/gemini-2.5-flash-image',
      prompt: 'a batik pattern',
      images: [PNG_URI],
      aspectRatio: '1:1',
    };
    const answer = await post('/v1/images/generations', body);
    expectQuoteCharged(kasir, answer, body);
    expect(google.requests.at(-1)).toEqual({
      path: '/v1beta/models/gemini-2.5-flash-image:generateContent',
      body: {
        contents: [
          {
            role: 'user',
            parts: [
              { text: 'a batik pattern' },
              { inlineData: { mimeType: 'image/png', data: PNG.toString('base64') } },
            ],
          },
        ],
        generationConfig: { responseModalities: ['TEXT', 'IMAGE'], imageConfig: { aspectRatio: '1:1' } },
      },
    });
    expect(
      (await bytesAt(String(answer.json.output?.url))).equals(google.produced.at(-1) ?? Buffer.alloc(0)),
    ).toBe(true);
  });

  it('runs Veo as a long-running operation and downloads its video with the key', async () => {
    const body = {
      model: 'google/veo-3.1-fast-generate-preview',
      prompt: 'hujan di Bogor',
      image: PNG_URI,
      durationSeconds: 4,
    };
    const answer = await post('/v1/video/generations', body);
    expectQuoteCharged(kasir, answer, body);
    const sent = google.requests.at(-1);
    expect(sent?.path).toBe('/v1beta/models/veo-3.1-fast-generate-preview:predictLongRunning');
    expect(sent?.body).toMatchObject({
      instances: [
        {
          prompt: 'hujan di Bogor',
          image: { bytesBase64Encoded: PNG.toString('base64'), mimeType: 'image/png' },
        },
      ],
      parameters: { durationSeconds: 4, aspectRatio: '16:9', resolution: '720p' },
    });
    expect(google.downloads.at(-1)?.key).toBe('goog-media');
    expect(answer.json.output?.contentType).toBe('video/mp4');
    expect(
      (await bytesAt(String(answer.json.output?.url))).equals(google.produced.at(-1) ?? Buffer.alloc(0)),
    ).toBe(true);
  });

  it('sends Veo reference images with the upper-case referenceType the Gemini API takes', async () => {
    const body = {
      model: 'google/veo-3.1-generate-preview',
      prompt: 'batik',
      referenceImages: [PNG_URI],
      durationSeconds: 8,
    };
    const answer = await post('/v1/video/generations', body);
    expectQuoteCharged(kasir, answer, body);
    const instances = google.requests.at(-1)?.body.instances as Array<Record<string, unknown>> | undefined;
    const instance = instances?.[0];
    expect(instance?.referenceImages).toEqual([
      {
        image: { bytesBase64Encoded: PNG.toString('base64'), mimeType: 'image/png' },
        referenceType: 'ASSET',
      },
    ]);
  });

  it('refuses bad input with a 400 naming the field, charging nothing', async () => {
    const before = await kasir.balance(accountId);
    const sent = google.requests.length;
    for (const [path, body, field] of [
      ['/v1/images/generations', { model: 'google/imagen-4', prompt: 'x', sampleCount: 9 }, 'sampleCount'],
      ['/v1/images/generations', { model: 'google/imagen-4' }, 'prompt'],
      [
        '/v1/video/generations',
        { model: 'google/veo-3.1-generate-preview', prompt: 'x', durationSeconds: 5 },
        'durationSeconds',
      ],
      [
        '/v1/video/generations',
        { model: 'google/veo-3.1-generate-preview', prompt: 'x', image: 'http://127.0.0.1:1/a.png' },
        'image',
      ],
      // Veo's seed is Vertex-only: the Gemini API refuses it.
      ['/v1/video/generations', { model: 'google/veo-3.1-generate-preview', prompt: 'x', seed: 7 }, 'seed'],
    ] as const) {
      const answer = await post(path, body);
      expect(answer.status, JSON.stringify(answer.json)).toBe(400);
      expect(answer.json.error?.param).toBe(field);
      expect(answer.charged ?? '0').toBe('0');
    }
    expect(google.requests.length).toBe(sent);
    expect(await kasir.balance(accountId)).toEqual({ ...before, held: 0 });
  });

  it.each([
    ['an Imagen safety filter', '/v1/images/generations', { filtered: 'Your prompt was blocked' }, 400],
    ['an Imagen server error', '/v1/images/generations', { failWith: 500 }, 502],
    [
      'a failed Veo operation',
      '/v1/video/generations',
      { operationError: { code: 13, message: 'internal error' } },
      502,
    ],
    [
      'a refused Veo operation',
      '/v1/video/generations',
      { operationError: { code: 3, message: 'bad image' } },
      400,
    ],
  ] as const)('charges nothing for %s', async (_name, path, script, status) => {
    google.setScript(script);
    const before = await kasir.balance(accountId);
    const body =
      path === '/v1/images/generations'
        ? { model: 'google/imagen-4-fast', prompt: 'x' }
        : { model: 'google/veo-3.1-fast-generate-preview', prompt: 'x', durationSeconds: 4 };
    const answer = await post(path, body);
    google.setScript({});
    expect(answer.status, JSON.stringify(answer.json)).toBe(status);
    expect(answer.charged).toBe('0');
    expect(await kasir.balance(accountId)).toEqual({ ...before, held: 0 });
  });
});
