// Contract: kasir's ElevenLabs adapter against the official `@elevenlabs/elevenlabs-js` client, both driven against
// one local recording server; text to speech sends the same method, path, `xi-api-key`, output format and body.
import { ElevenLabsClient } from '@elevenlabs/elevenlabs-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createElevenLabsProvider } from '../../src/providers/elevenlabs/provider.js';
import { type Recorder, startRecorder } from '../support/recorder.js';
import { adapterDeps, compareRequests, mediaCall } from './adapter-kit.js';

const KEY = 'xi-contract';

describe('ElevenLabs adapter ⇔ official @elevenlabs/elevenlabs-js', () => {
  let rec: Recorder;
  let sdk: ElevenLabsClient;
  let kasir: ReturnType<typeof createElevenLabsProvider>;
  let close: () => Promise<void>;

  beforeAll(async () => {
    rec = await startRecorder(() => ({
      bytes: Buffer.from('ID3audio'),
      headers: { 'content-type': 'audio/mpeg' },
    }));
    sdk = new ElevenLabsClient({ apiKey: KEY, baseUrl: rec.url });
    const deps = adapterDeps('elevenlabs', rec.url, KEY);
    kasir = createElevenLabsProvider(deps.config, deps.client);
    close = deps.close;
  });
  afterAll(async () => {
    await close();
    await rec.close();
  });

  it('speaks text with the same path, output format and body', async () => {
    const { fromSdk, fromKasir } = await compareRequests(
      rec,
      () =>
        sdk.textToSpeech.convert('JBFqnCBsd6RMkjVDRZzb', {
          text: 'Halo dari kasir',
          modelId: 'eleven_flash_v2_5',
          outputFormat: 'mp3_44100_128',
        }),
      () =>
        kasir.run(
          mediaCall('eleven_flash_v2_5', 'audio', {
            text: 'Halo dari kasir',
            voice_id: 'JBFqnCBsd6RMkjVDRZzb',
            output_format: 'mp3_44100_128',
          }),
        ),
      'xi-api-key',
    );
    const query = (path: string) => Object.fromEntries(new URL(path, 'http://x').searchParams);
    expect(query(fromKasir.path)).toEqual(query(fromSdk.path));
    expect(fromKasir.json).toEqual(fromSdk.json);
  });
});
