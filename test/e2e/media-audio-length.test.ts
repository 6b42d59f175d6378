// Speech-to-text is priced on the audio's own length, read from the file's headers before the quote: a 3-second
// clip sent without a duration costs one minute, not the 60-minute ceiling; a long file declared short is charged
// its real length; inline files, data URIs and URLs (fetched through the safe fetcher before the quote) alike; a
// file whose length cannot be read, or that is longer than the model takes, is a 400 naming the field, uncharged.
// Also: a streamed gpt-4o transcription answers the real text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAssemblyAi, startFakeAssemblyAi } from '../fakes/assemblyai-upstream.js';
import { type AudioHost, startAudioHost, wav } from '../fakes/audio-files.js';
import { type FakeOpenAiMedia, startFakeOpenAiMedia } from '../fakes/openai-media-upstream.js';
import { type PaidKasir, startPaidKasir } from '../support/paid.js';
import { postPaid } from '../support/paid-call.js';

const SHORT = wav(3);
const LONG = wav(150);
const uri = (bytes: Buffer) => `data:audio/wav;base64,${bytes.toString('base64')}`;

describe('speech-to-text priced on the measured length', () => {
  let kasir: PaidKasir;
  let openai: FakeOpenAiMedia;
  let assembly: FakeAssemblyAi;
  let host: AudioHost;
  let key: string;
  let accountId: string;

  beforeAll(async () => {
    openai = await startFakeOpenAiMedia({ apiKey: 'sk-stt' });
    assembly = await startFakeAssemblyAi({ apiKey: 'aai-stt' });
    host = await startAudioHost({
      '/short.wav': SHORT,
      '/long.wav': LONG,
      '/noise.mp3': Buffer.alloc(4000, 9),
    });
    kasir = await startPaidKasir('sqlite', {
      OPENAI_API_KEY: 'sk-stt',
      OPENAI_BASE_URL: openai.url,
      ASSEMBLYAI_API_KEY: 'aai-stt',
      ASSEMBLYAI_BASE_URL: assembly.url,
      FETCH_ALLOWED_HOSTS: new URL(host.url).host,
    });
    ({ key, accountId } = await kasir.fundedKey(20_000_000));
  });
  afterAll(async () => {
    await kasir.stop();
    await Promise.all([openai.close(), assembly.close(), host.close()]);
  });

  type Json = { costMicroUsd?: number; output?: Record<string, unknown>; error?: { param?: string } };
  const post = (body: Record<string, unknown>) =>
    postPaid<Json>(kasir, key, '/v1/audio/transcriptions', body);
  const priced = (model: string, seconds: number) =>
    kasir.quote({ model, duration: seconds, file: 'https://example.com/a.wav' });

  it('charges a 3-second clip sent without a duration one minute, not the ceiling', async () => {
    const answer = await post({ model: 'openai/whisper-1', file: uri(SHORT) });
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    expect(answer.charged).toBe(String(priced('openai/whisper-1', 3)));
    expect(Number(answer.charged)).toBeLessThan(priced('openai/whisper-1', 3600));
    expect(openai.requests.at(-1)?.form?.get('duration')).toBeNull();
  });

  it('charges a 150-second file declared as 1 second its real length (3 started minutes)', async () => {
    const answer = await post({
      model: 'openai/whisper-1',
      audio_base64: LONG.toString('base64'),
      duration: 1,
    });
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    expect(answer.charged).toBe(String(priced('openai/whisper-1', 150)));
    expect(answer.charged).not.toBe(String(priced('openai/whisper-1', 60)));
  });

  it('fetches a URL through the safe fetcher before the quote, and still passes it on to AssemblyAI', async () => {
    const url = `${host.url}/long.wav`;
    const reads = host.reads.length;
    const answer = await post({ model: 'assemblyai/universal', audio_url: url });
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    expect(answer.charged).toBe(
      String(kasir.quote({ model: 'assemblyai/universal', audio_url: url, duration: 150 })),
    );
    expect(host.reads.length).toBe(reads + 1);
    expect(assembly.creates.at(-1)).toMatchObject({ audio_url: url });
  });

  it('refuses audio whose length cannot be read, or longer than the model takes, naming the field', async () => {
    const before = await kasir.balance(accountId);
    const sent = openai.requests.length;
    for (const [body, field] of [
      [
        {
          model: 'openai/whisper-1',
          file: `data:audio/mpeg;base64,${Buffer.alloc(3000, 7).toString('base64')}`,
        },
        'file',
      ],
      [{ model: 'openai/whisper-1', file: `${host.url}/noise.mp3` }, 'file'],
      [{ model: 'openai/whisper-1', file: uri(wav(3700, 1000)) }, 'file'],
    ] as const) {
      const answer = await post(body);
      expect(answer.status, JSON.stringify(answer.json)).toBe(400);
      expect(answer.json.error?.param).toBe(field);
      expect(answer.charged ?? '0').toBe('0');
    }
    expect(openai.requests.length).toBe(sent);
    expect(await kasir.balance(accountId)).toEqual({ ...before, held: 0 });
  });

  it('answers a streamed gpt-4o transcription with its real text, billed on the measured length', async () => {
    const answer = await post({ model: 'openai/gpt-4o-transcribe', file: uri(SHORT), stream: true });
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    expect(answer.json.output?.text).toBe(`heard ${SHORT.length} bytes of audio/wav in audio.wav`);
    expect(String(answer.json.output?.text)).not.toContain('data:');
    expect(answer.charged).toBe(String(priced('openai/gpt-4o-transcribe', 3)));
  });
});
