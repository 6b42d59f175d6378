// AssemblyAI and Deepgram end to end on each database (local fakes in their wire formats): a public URL passed on
// (after kasir read its length),
// an inline file uploaded (AssemblyAI) or sent as the body (Deepgram), the provider's own transcript answered and
// charged the quote; bad input and upstream failures charged nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAssemblyAi, startFakeAssemblyAi } from '../fakes/assemblyai-upstream.js';
import { type AudioHost, mp3, startAudioHost } from '../fakes/audio-files.js';
import { type FakeDeepgram, startFakeDeepgram } from '../fakes/deepgram-upstream.js';
import { DB_TARGETS } from '../support/app.js';
import { type PaidKasir, startPaidKasir } from '../support/paid.js';
import { expectQuoteCharged, postPaid } from '../support/paid-call.js';

/** A real MP3 of 5 s (CBR frames): kasir reads its length before the quote. */
const MP3 = mp3(5);
const DATA_URI = `data:audio/mpeg;base64,${MP3.toString('base64')}`;
/** A 90-second recording on an address the operator allowlisted (as FETCH_ALLOWED_HOSTS allows): measured, then passed on. */
let PUBLIC_AUDIO = '';

describe.each(DB_TARGETS)('AssemblyAI and Deepgram transcriptions on %s', (db) => {
  let kasir: PaidKasir;
  let assembly: FakeAssemblyAi;
  let deepgram: FakeDeepgram;
  let host: AudioHost;
  let key: string;
  let accountId: string;

  beforeAll(async () => {
    assembly = await startFakeAssemblyAi({ apiKey: 'aai-fake' });
    deepgram = await startFakeDeepgram({ apiKey: 'dg-fake' });
    host = await startAudioHost({ '/call.mp3': mp3(90) });
    PUBLIC_AUDIO = `${host.url}/call.mp3`;
    kasir = await startPaidKasir(db, {
      ASSEMBLYAI_API_KEY: 'aai-fake',
      ASSEMBLYAI_BASE_URL: assembly.url,
      DEEPGRAM_API_KEY: 'dg-fake',
      DEEPGRAM_BASE_URL: deepgram.url,
      FETCH_ALLOWED_HOSTS: new URL(host.url).host,
    });
    ({ key, accountId } = await kasir.fundedKey(20_000_000));
  });
  afterAll(async () => {
    await kasir.stop();
    await assembly.close();
    await deepgram.close();
    await host.close();
  });

  const post = (body: Record<string, unknown>) =>
    postPaid<{
      costMicroUsd?: number;
      output?: Record<string, unknown>;
      error?: { param?: string };
    }>(kasir, key, '/v1/audio/transcriptions', body);

  it('passes a public URL on to AssemblyAI and polls the transcript to its end', async () => {
    const body = {
      model: 'assemblyai/universal',
      audio_url: PUBLIC_AUDIO,
      speaker_labels: true,
      duration: 90,
    };
    const answer = await post(body);
    expectQuoteCharged(kasir, answer, body);
    expect(answer.json.costMicroUsd).toBe(kasir.quote(body));
    expect(assembly.creates.at(-1)).toEqual({
      audio_url: PUBLIC_AUDIO,
      speech_models: ['universal-2'],
      speaker_labels: true,
      punctuate: true,
      format_text: true,
    });
    expect(answer.json.output).toMatchObject({ status: 'completed', text: `heard ${PUBLIC_AUDIO}` });
    expect([...assembly.polls.values()].at(-1)).toBeGreaterThanOrEqual(3);
  });

  it('uploads an inline file to AssemblyAI before transcribing it', async () => {
    const body = { model: 'assemblyai/universal-3-pro', audio_url: DATA_URI, duration: 5 };
    const answer = await post(body);
    expectQuoteCharged(kasir, answer, body);
    const [uploadUrl, uploaded] = [...assembly.uploads.entries()].at(-1) ?? [];
    expect(uploaded?.equals(MP3)).toBe(true);
    expect(assembly.creates.at(-1)).toMatchObject({
      audio_url: uploadUrl,
      speech_models: ['universal-3-pro'],
    });
    expect(answer.json.output?.text).toBe(`heard ${MP3.length} uploaded bytes`);
  });

  it('sends Deepgram a URL as JSON and the options as query parameters', async () => {
    const body = {
      model: 'deepgram/nova-3',
      url: PUBLIC_AUDIO,
      diarize: true,
      keyterm: ['kasir', 'rupiah'],
      callback: 'https://example.com/hook',
      duration: 90,
    };
    const answer = await post(body);
    expectQuoteCharged(kasir, answer, body);
    const sent = deepgram.requests.at(-1);
    expect(sent?.json).toEqual({ url: PUBLIC_AUDIO });
    expect(sent?.query.get('model')).toBe('nova-3');
    expect(sent?.query.get('diarize')).toBe('true');
    expect(sent?.query.get('language')).toBe('en');
    expect(sent?.query.getAll('keyterm')).toEqual(['kasir', 'rupiah']);
    expect(sent?.query.has('callback')).toBe(false);
    expect(sent?.query.has('duration')).toBe(false);
    expect(answer.json.output).toMatchObject({
      text: `heard ${PUBLIC_AUDIO}`,
      results: { channels: [{ alternatives: [{ transcript: `heard ${PUBLIC_AUDIO}` }] }] },
    });
  });

  it('sends Deepgram an inline file as the body with its content type', async () => {
    const body = { model: 'deepgram/nova-3', audio_base64: MP3.toString('base64'), duration: 5 };
    const answer = await post(body);
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    // The generic audio_base64 fills the model's own file field before the price is read.
    expect(answer.charged).toBe(
      String(kasir.quote({ model: 'deepgram/nova-3', url: DATA_URI, duration: 5 })),
    );
    const sent = deepgram.requests.at(-1);
    expect(sent?.contentType).toBe('audio/mpeg');
    expect(sent?.bytes?.equals(MP3)).toBe(true);
    expect(answer.json.output?.text).toBe(`heard ${MP3.length} bytes`);
  });

  it('refuses bad input with a 400 naming the field, charging nothing', async () => {
    const before = await kasir.balance(accountId);
    const [creates, listens] = [assembly.creates.length, deepgram.requests.length];
    for (const [body, field] of [
      [{ model: 'assemblyai/universal', duration: 5 }, 'audio_url'],
      [
        { model: 'assemblyai/universal', audio_url: 'http://169.254.169.254/latest', duration: 5 },
        'audio_url',
      ],
      [{ model: 'deepgram/nova-3', url: 'http://[::1]/a.mp3', duration: 5 }, 'url'],
      [{ model: 'deepgram/nova-3', url: PUBLIC_AUDIO, diarize: 'yes', duration: 5 }, 'diarize'],
    ] as const) {
      const answer = await post(body);
      expect(answer.status, JSON.stringify(answer.json)).toBe(400);
      expect(answer.json.error?.param).toBe(field);
      expect(answer.charged ?? '0').toBe('0');
    }
    expect([assembly.creates.length, deepgram.requests.length]).toEqual([creates, listens]);
    expect(await kasir.balance(accountId)).toEqual({ ...before, held: 0 });
  });

  it('charges nothing when the upstream fails or errors the transcript', async () => {
    const before = await kasir.balance(accountId);
    assembly.failWith = 500;
    const down = await post({ model: 'assemblyai/universal', audio_url: PUBLIC_AUDIO, duration: 5 });
    assembly.failWith = null;
    expect(down.status).toBe(502);
    expect(down.charged).toBe('0');

    assembly.errorWith = 'Internal server error while transcribing';
    const errored = await post({ model: 'assemblyai/universal', audio_url: PUBLIC_AUDIO, duration: 5 });
    assembly.errorWith = 'Download error, unable to download the audio file';
    const unreadable = await post({ model: 'assemblyai/universal', audio_url: PUBLIC_AUDIO, duration: 5 });
    assembly.errorWith = null;
    expect([errored.status, unreadable.status]).toEqual([502, 400]);
    expect([errored.charged, unreadable.charged]).toEqual(['0', '0']);

    deepgram.failWith = 503;
    const dg = await post({ model: 'deepgram/nova-3', url: PUBLIC_AUDIO, duration: 5 });
    deepgram.failWith = null;
    expect(dg.status).toBe(502);
    expect(dg.charged).toBe('0');
    expect(await kasir.balance(accountId)).toEqual({ ...before, held: 0 });
  });
});
