// ElevenLabs end to end on each database (a local fake in its wire format): speech and music re-hosted byte for
// byte and charged the quote, a transcription from a data URI, failures charged nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mp3 } from '../fakes/audio-files.js';
import { type FakeElevenLabs, startFakeElevenLabs } from '../fakes/elevenlabs-upstream.js';
import { DB_TARGETS } from '../support/app.js';
import { type PaidKasir, startPaidKasir } from '../support/paid.js';
import { expectQuoteCharged, hostedBytes, postPaid } from '../support/paid-call.js';

const MP3 = mp3(4);

describe.each(DB_TARGETS)('ElevenLabs media models on %s', (db) => {
  let kasir: PaidKasir;
  let eleven: FakeElevenLabs;
  let key: string;
  let accountId: string;

  beforeAll(async () => {
    eleven = await startFakeElevenLabs({ apiKey: 'xi-fake' });
    kasir = await startPaidKasir(db, { ELEVENLABS_API_KEY: 'xi-fake', ELEVENLABS_BASE_URL: eleven.url });
    ({ key, accountId } = await kasir.fundedKey(20_000_000));
  });
  afterAll(async () => {
    await kasir.stop();
    await eleven.close();
  });

  const post = (path: string, body: Record<string, unknown>) =>
    postPaid<{ output?: Record<string, unknown> & { url?: string } }>(kasir, key, path, body);
  const bytesAt = (url: string) => hostedBytes(kasir, url);

  it('speaks with the voice in the path and the format in the query, re-hosting the audio', async () => {
    const body = {
      model: 'elevenlabs/eleven_flash_v2_5',
      text: 'Halo dari kasir',
      voice_id: 'JBFqnCBsd6RMkjVDRZzb',
      output_format: 'opus_48000_64',
    };
    const answer = await post('/v1/audio/speech', body);
    expectQuoteCharged(kasir, answer, body);
    expect(eleven.requests.at(-1)).toMatchObject({
      path: '/v1/text-to-speech/JBFqnCBsd6RMkjVDRZzb?output_format=opus_48000_64',
      json: { text: 'Halo dari kasir', model_id: 'eleven_flash_v2_5' },
    });
    expect(eleven.requests.at(-1)?.json).not.toHaveProperty('voice_id');
    expect(answer.json.output?.contentType).toBe('audio/opus');
    expect((await bytesAt(String(answer.json.output?.url))).equals(eleven.lastAudio)).toBe(true);
  });

  it('composes music, charged the ceiling of its length', async () => {
    const body = { model: 'elevenlabs/music_v1', prompt: 'gamelan lo-fi', music_length_ms: 30_000 };
    const answer = await post('/v1/music/generations', body);
    expectQuoteCharged(kasir, answer, body);
    expect(eleven.requests.at(-1)?.json).toMatchObject({ prompt: 'gamelan lo-fi', model_id: 'music_v1' });
    expect((await bytesAt(String(answer.json.output?.url))).equals(eleven.lastAudio)).toBe(true);
  });

  it('transcribes a data URI as multipart, answering ElevenLabs’ own body', async () => {
    const body = {
      model: 'elevenlabs/scribe_v1',
      file: `data:audio/mpeg;base64,${MP3.toString('base64')}`,
      duration: 20,
    };
    const answer = await post('/v1/audio/transcriptions', body);
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    expect(answer.json.output).toMatchObject({ language_code: 'ind', text: `terdengar ${MP3.length} byte` });
    expect(eleven.requests.at(-1)?.form?.get('duration')).toBeNull();
  });

  it('charges nothing when ElevenLabs fails or refuses', async () => {
    const before = await kasir.balance(accountId);
    for (const [status, expected] of [
      [500, 502],
      [422, 400],
    ] as const) {
      eleven.failWith = status;
      const answer = await post('/v1/audio/speech', {
        model: 'elevenlabs/eleven_v3',
        text: 'x',
        voice_id: 'v1',
      });
      expect(answer.status).toBe(expected);
      expect(answer.charged).toBe('0');
    }
    eleven.failWith = null;
    expect(await kasir.balance(accountId)).toEqual({ ...before, held: 0 });
  });
});
