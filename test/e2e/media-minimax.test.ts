// MiniMax end to end on each database (a local fake in its wire format): speech and music answered as hex audio,
// re-hosted byte for byte and charged the quote; bad input, refusals carried in base_resp and upstream failures
// charged nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeMiniMax, startFakeMiniMax } from '../fakes/minimax-upstream.js';
import { DB_TARGETS } from '../support/app.js';
import { type PaidKasir, startPaidKasir } from '../support/paid.js';
import { expectQuoteCharged, hostedBytes, postPaid } from '../support/paid-call.js';

describe.each(DB_TARGETS)('MiniMax speech and music on %s', (db) => {
  let kasir: PaidKasir;
  let minimax: FakeMiniMax;
  let key: string;
  let accountId: string;

  beforeAll(async () => {
    minimax = await startFakeMiniMax({ apiKey: 'mm-fake' });
    kasir = await startPaidKasir(db, { MINIMAX_API_KEY: 'mm-fake', MINIMAX_BASE_URL: minimax.url });
    ({ key, accountId } = await kasir.fundedKey(20_000_000));
  });
  afterAll(async () => {
    await kasir.stop();
    await minimax.close();
  });

  const post = (path: string, body: Record<string, unknown>) =>
    postPaid<{
      costMicroUsd?: number;
      output?: { url: string; contentType: string; sizeBytes: number };
      error?: { param?: string; code?: string };
    }>(kasir, key, path, body);
  const bytesAt = (url: string) => hostedBytes(kasir, url);

  it('speaks hex audio, re-hosted byte for byte and charged per character', async () => {
    const body = {
      model: 'minimax/speech-2.6-hd',
      text: 'Selamat pagi, Jakarta',
      voice_setting: { voice_id: 'Wise_Woman', speed: 1.2 },
      audio_setting: { format: 'flac', sample_rate: 32000 },
      output_format: 'url',
      stream: true,
    };
    const answer = await post('/v1/audio/speech', body);
    expectQuoteCharged(kasir, answer, body);
    expect(answer.json.costMicroUsd).toBe(kasir.quote(body));
    expect(minimax.requests.at(-1)).toEqual({
      path: '/v1/t2a_v2',
      body: {
        ...body,
        // The schema's defaults are filled in before the call.
        voice_setting: { voice_id: 'Wise_Woman', speed: 1.2, vol: 1, pitch: 0 },
        model: 'speech-2.6-hd',
        output_format: 'hex',
        stream: false,
      },
    });
    expect(answer.json.output).toMatchObject({
      contentType: 'audio/flac',
      sizeBytes: minimax.lastAudio.length,
    });
    expect((await bytesAt(String(answer.json.output?.url))).equals(minimax.lastAudio)).toBe(true);
  });

  it('composes music from a prompt and lyrics', async () => {
    const body = {
      model: 'minimax/music-2.0',
      prompt: 'dangdut koplo, upbeat, kendang',
      lyrics: '[verse]\nJalan-jalan ke Bandung\n[chorus]\nHati senang',
    };
    const answer = await post('/v1/music/generations', body);
    expectQuoteCharged(kasir, answer, body);
    expect(minimax.requests.at(-1)).toEqual({
      path: '/v1/music_generation',
      body: { ...body, model: 'music-2.0', output_format: 'hex' },
    });
    expect(answer.json.output?.contentType).toBe('audio/mpeg');
    expect((await bytesAt(String(answer.json.output?.url))).equals(minimax.lastAudio)).toBe(true);
  });

  it('refuses bad input with a 400 naming the field, charging nothing', async () => {
    const before = await kasir.balance(accountId);
    const sent = minimax.requests.length;
    for (const [path, body, field] of [
      ['/v1/audio/speech', { model: 'minimax/speech-2.6-hd' }, 'text'],
      [
        '/v1/audio/speech',
        { model: 'minimax/speech-2.6-hd', text: 'x', voice_setting: { speed: 9 } },
        'voice_setting',
      ],
      ['/v1/music/generations', { model: 'minimax/music-2.0', prompt: 'lofi beats for study' }, 'lyrics'],
    ] as const) {
      const answer = await post(path, body);
      expect(answer.status, JSON.stringify(answer.json)).toBe(400);
      expect(String(answer.json.error?.param)).toContain(field);
      expect(answer.charged ?? '0').toBe('0');
    }
    expect(minimax.requests.length).toBe(sent);
    expect(await kasir.balance(accountId)).toEqual({ ...before, held: 0 });
  });

  it.each([
    ['sensitive content', { status_code: 1026, status_msg: 'input new_sensitive' }, null, 400],
    ['an exhausted balance', { status_code: 1008, status_msg: 'insufficient balance' }, null, 502],
    ['a rejected key', { status_code: 1004, status_msg: 'login fail' }, null, 502],
    ['an HTTP failure', null, 503, 502],
  ] as const)('charges nothing for %s', async (_name, failCode, failWith, status) => {
    minimax.failCode = failCode;
    minimax.failWith = failWith;
    const before = await kasir.balance(accountId);
    const answer = await post('/v1/audio/speech', { model: 'minimax/speech-2.6-hd', text: 'halo' });
    minimax.failCode = null;
    minimax.failWith = null;
    expect(answer.status, JSON.stringify(answer.json)).toBe(status);
    expect(answer.charged).toBe('0');
    expect(await kasir.balance(accountId)).toEqual({ ...before, held: 0 });
  });
});
