// Contract: kasir's AssemblyAI adapter against the official `assemblyai` client, both driven against one local
// recording server; creating a transcript from a public URL and reading it send the same method, path, auth header
// and body fields (kasir adds `punctuate` and `format_text`, AssemblyAI's own defaults, made explicit).
import { AssemblyAI } from 'assemblyai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAssemblyAiProvider } from '../../src/providers/assemblyai/provider.js';
import { type Recorder, startRecorder } from '../support/recorder.js';
import { adapterDeps, compareRequests, mediaCall, TIMING } from './adapter-kit.js';

const KEY = 'aai-contract';
const TRANSCRIPT = {
  id: '6b1c1e4e-1a3c-4d2b-9f3e-7a8b9c0d1e2f',
  status: 'queued',
  audio_url: 'https://example.com/a.mp3',
};

describe('AssemblyAI adapter ⇔ official assemblyai SDK', () => {
  let rec: Recorder;
  let sdk: AssemblyAI;
  let kasir: ReturnType<typeof createAssemblyAiProvider>;
  let close: () => Promise<void>;

  beforeAll(async () => {
    rec = await startRecorder(() => ({ json: TRANSCRIPT }));
    sdk = new AssemblyAI({ apiKey: KEY, baseUrl: rec.url });
    const deps = adapterDeps('assemblyai', rec.url, KEY);
    kasir = createAssemblyAiProvider(deps.config, deps.client, TIMING);
    close = deps.close;
  });
  afterAll(async () => {
    await close();
    await rec.close();
  });

  it('creates a transcript from a URL with the same fields, and reads it at the same path', async () => {
    const queue = kasir.queue;
    if (!queue) throw new Error('AssemblyAI runs as a queue');
    const url = 'https://example.com/a.mp3';
    const { fromSdk, fromKasir } = await compareRequests(
      rec,
      () => sdk.transcripts.submit({ audio_url: url, speech_models: ['universal-2'], speaker_labels: true }),
      () =>
        queue.submit(
          mediaCall('universal-2', 'json', { speaker_labels: true }, { audio_url: { kind: 'url', url } }),
        ),
    );
    expect(fromKasir.json).toMatchObject(fromSdk.json as Record<string, unknown>);
    await compareRequests(
      rec,
      () => sdk.transcripts.get(TRANSCRIPT.id),
      () => queue.status({ id: TRANSCRIPT.id }, mediaCall('x', 'json', {}).signal),
    );
  });
});
