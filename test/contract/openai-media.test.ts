// Contract: kasir's OpenAI media adapters against the official `openai` client, both driven against one local
// recording server; for each operation (image generation, speech, transcription, Sora's create / retrieve /
// delete / content download) kasir's request matches the SDK's: method, path, auth header, body fields (JSON, or
// the multipart parts with the file's bytes and type).
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAiMediaProvider, createOpenAiVideoProvider } from '../../src/providers/openai/provider.js';
import { wav } from '../fakes/audio-files.js';
import { pathOf, type Recorded, type Recorder, startRecorder } from '../support/recorder.js';
import { adapterDeps, compareRequests, mediaCall, queueOf, TIMING } from './adapter-kit.js';

const KEY = 'sk-contract';
const AUDIO = wav(2);
const VIDEO = {
  id: 'video_68d',
  object: 'video',
  model: 'sora-2',
  status: 'queued',
  progress: 0,
  error: null,
};

/** A multipart body's text parts, and its files as `{ type, bytes }`. */
async function parts(r: Recorded) {
  const text: Record<string, string> = {};
  const files: Record<string, { type: string; bytes: string }> = {};
  for (const [name, value] of r.form?.entries() ?? []) {
    if (typeof value === 'string') text[name] = value;
    else files[name] = { type: value.type, bytes: Buffer.from(await value.arrayBuffer()).toString('base64') };
  }
  return { text, files };
}

describe('OpenAI media adapters ⇔ official openai SDK', () => {
  let rec: Recorder;
  let sdk: OpenAI;
  let media: ReturnType<typeof createOpenAiMediaProvider>;
  let video: ReturnType<typeof createOpenAiVideoProvider>;
  let close: () => Promise<void>;

  beforeAll(async () => {
    rec = await startRecorder((r) => {
      const path = pathOf(r);
      if (path === '/v1/images/generations') return { json: { created: 1, data: [{ b64_json: 'AAAA' }] } };
      if (path === '/v1/audio/speech') return { bytes: Buffer.from('ID3audio') };
      if (path === '/v1/audio/transcriptions') return { json: { text: 'halo' } };
      if (path.endsWith('/content')) return { bytes: Buffer.from('mp4') };
      if (r.method === 'DELETE') return { json: { id: VIDEO.id, object: 'video.deleted', deleted: true } };
      if (path.startsWith('/v1/videos')) return { json: VIDEO };
      return undefined;
    });
    sdk = new OpenAI({ apiKey: KEY, baseURL: `${rec.url}/v1`, maxRetries: 0 });
    const deps = adapterDeps('openai', `${rec.url}/v1`, KEY);
    media = createOpenAiMediaProvider(deps.config, deps.client);
    video = createOpenAiVideoProvider(deps.config, deps.client, TIMING);
    close = deps.close;
  });
  afterAll(async () => {
    await close();
    await rec.close();
  });

  it('generates images with the same JSON body', async () => {
    const input = { prompt: 'a cat', n: 2, size: '1024x1024', quality: 'low' } as const;
    const { fromSdk, fromKasir } = await compareRequests(
      rec,
      () => sdk.images.generate({ model: 'gpt-image-1', ...input }),
      () => media.run(mediaCall('gpt-image-1', 'image', { ...input })),
    );
    expect(fromKasir.json).toEqual(fromSdk.json);
  });

  it('makes speech with the same JSON body', async () => {
    const input = { input: 'Selamat pagi', voice: 'alloy', response_format: 'wav' } as const;
    const { fromSdk, fromKasir } = await compareRequests(
      rec,
      async () => (await sdk.audio.speech.create({ model: 'tts-1', ...input })).arrayBuffer(),
      () => media.run(mediaCall('tts-1', 'audio', { ...input })),
    );
    expect(fromKasir.json).toEqual(fromSdk.json);
  });

  it('transcribes with the same multipart parts and the same file bytes and type', async () => {
    const { fromSdk, fromKasir } = await compareRequests(
      rec,
      async () =>
        sdk.audio.transcriptions.create({
          model: 'whisper-1',
          file: await toFile(AUDIO, 'audio.wav', { type: 'audio/wav' }),
          language: 'id',
        }),
      () =>
        media.run(
          mediaCall(
            'whisper-1',
            'text',
            { language: 'id' },
            {
              file: { kind: 'bytes', bytes: AUDIO, contentType: 'audio/wav' },
            },
          ),
        ),
    );
    const [a, b] = [await parts(fromSdk), await parts(fromKasir)];
    expect(b.text).toEqual(a.text);
    expect(b.files).toEqual(a.files);
  });

  it("creates a Sora video with the same multipart parts, and reads, deletes and downloads it at the SDK's paths", async () => {
    const input = { prompt: 'ombak', seconds: '8', size: '1280x720' } as const;
    const { fromSdk, fromKasir } = await compareRequests(
      rec,
      () => sdk.videos.create({ model: 'sora-2', ...input }),
      () => queueOf(video).submit(mediaCall('sora-2', 'video', { ...input })),
    );
    const [a, b] = [await parts(fromSdk), await parts(fromKasir)];
    expect(b.text).toEqual(a.text);
    const signal = mediaCall('x', 'video', {}).signal;
    await compareRequests(
      rec,
      () => sdk.videos.retrieve(VIDEO.id),
      () => queueOf(video).status({ id: VIDEO.id }, signal),
    );
    await compareRequests(
      rec,
      () => sdk.videos.delete(VIDEO.id),
      () => queueOf(video).cancel({ id: VIDEO.id }, signal),
    );
    // The content download is made by kasir's safe fetcher from the URL the adapter names: compared as a URL.
    rec.clear();
    await (await sdk.videos.downloadContent(VIDEO.id, { variant: 'video' })).arrayBuffer();
    const fromSdkDownload = rec.requests[0];
    const output = await queueOf(video).result({ id: VIDEO.id }, signal);
    const file = output.kind === 'files' ? output.files[0] : undefined;
    expect(file?.kind === 'url' ? file.url : '').toBe(`${rec.url}${fromSdkDownload?.path}`);
    expect(file?.kind === 'url' ? file.headers?.authorization : '').toBe(
      fromSdkDownload?.headers.authorization,
    );
  });
});
