// Contract: kasir's Deepgram adapter against the official `@deepgram/sdk` client, both driven against one local
// recording server; a pre-recorded transcription of a public URL sends the same method, path, auth header, query
// options and JSON body.
import { DeepgramClient } from '@deepgram/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeepgramProvider } from '../../src/providers/deepgram/provider.js';
import { type Recorder, startRecorder } from '../support/recorder.js';
import { adapterDeps, compareRequests, mediaCall } from './adapter-kit.js';

const KEY = 'dg-contract';
const ANSWER = {
  metadata: { request_id: 'r1', duration: 2.5, channels: 1 },
  results: { channels: [{ alternatives: [{ transcript: 'halo', confidence: 0.9, words: [] }] }] },
};

describe('Deepgram adapter ⇔ official @deepgram/sdk', () => {
  let rec: Recorder;
  let sdk: DeepgramClient;
  let kasir: ReturnType<typeof createDeepgramProvider>;
  let close: () => Promise<void>;

  beforeAll(async () => {
    rec = await startRecorder(() => ({ json: ANSWER }));
    sdk = new DeepgramClient({ apiKey: KEY, baseUrl: rec.url } as ConstructorParameters<
      typeof DeepgramClient
    >[0]);
    const deps = adapterDeps('deepgram', rec.url, KEY);
    kasir = createDeepgramProvider(deps.config, deps.client);
    close = deps.close;
  });
  afterAll(async () => {
    await close();
    await rec.close();
  });

  it('transcribes a URL with the same query options and body', async () => {
    const url = 'https://example.com/call.wav';
    const { fromSdk, fromKasir } = await compareRequests(
      rec,
      () => sdk.listen.v1.media.transcribeUrl({ url, model: 'nova-3', diarize: true, language: 'en' }),
      () =>
        kasir.run(
          mediaCall('nova-3', 'json', { diarize: true, language: 'en' }, { url: { kind: 'url', url } }),
        ),
    );
    const query = (path: string) => Object.fromEntries(new URL(path, 'http://x').searchParams);
    expect(query(fromKasir.path)).toEqual(query(fromSdk.path));
    expect(fromKasir.json).toEqual(fromSdk.json);
  });
});
