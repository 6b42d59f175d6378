// Media models end to end on each database: fal's queue and OpenAI's images/audio served by local fakes in their
// wire formats; results re-hosted in the media store; file inputs by URL (through the safe fetcher), data URI,
// raw base64 and kasir's own links; SSRF attempts refused before any charge.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mp3 } from '../fakes/audio-files.js';
import { type FakeOpenAiMedia, startFakeOpenAiMedia } from '../fakes/openai-media-upstream.js';
import { DB_TARGETS } from '../support/app.js';
import { type PaidKasir, startPaidKasir } from '../support/paid.js';
import { postPaid } from '../support/paid-call.js';

const FUNDS = 50_000_000;
const FLUX = 'black-forest-labs/flux-schnell@fal';
const KONTEXT = 'black-forest-labs/flux-kontext-pro';
/** A real MP3 (CBR frames): file-type calls it audio/mpeg, and its length (4 s) is read from its frames. */
const MP3 = mp3(4);
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

interface Answer {
  status: number;
  json: Record<string, unknown> & {
    output?: Record<string, unknown> & { url?: string; files?: Array<{ url: string }> };
    error?: { code: string; message: string; param?: string };
  };
  charged: string | null;
  balance: string | null;
}

describe.each(DB_TARGETS)('media models on %s', (db) => {
  let kasir: PaidKasir;
  let openai: FakeOpenAiMedia;
  let files: Server;
  let filesUrl: string;
  let forbidden: Server;
  let forbiddenUrl: string;
  let key: string;
  let accountId: string;

  beforeAll(async () => {
    openai = await startFakeOpenAiMedia({ apiKey: 'sk-media' });
    // A "public" file host (allowlisted, as FETCH_ALLOWED_HOSTS allows for tests) and a private one (not).
    files = createServer((req, res) => {
      if (req.url === '/speech.mp3') res.writeHead(200, { 'content-type': 'audio/mpeg' }).end(MP3);
      else if (req.url === '/photo.png') res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      else if (req.url === '/to-private')
        res.writeHead(302, { location: `${forbiddenUrl}/speech.mp3` }).end();
      else res.writeHead(404).end();
    });
    forbidden = createServer((_req, res) => res.writeHead(200, { 'content-type': 'audio/mpeg' }).end(MP3));
    await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => forbidden.listen(0, '127.0.0.1', r));
    filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    forbiddenUrl = `http://127.0.0.1:${(forbidden.address() as AddressInfo).port}`;
    kasir = await startPaidKasir(db, {
      OPENAI_API_KEY: 'sk-media',
      OPENAI_BASE_URL: openai.url,
      FETCH_ALLOWED_HOSTS: filesUrl.slice('http://'.length),
      MEDIA_WAIT_MS: '1500',
    });
    ({ key, accountId } = await kasir.fundedKey(FUNDS));
  });
  afterAll(async () => {
    await kasir.stop();
    await openai.close();
    await new Promise((r) => files.close(r));
    await new Promise((r) => forbidden.close(r));
  });

  const post = (path: string, body: Record<string, unknown>): Promise<Answer> =>
    postPaid<Answer['json']>(kasir, key, path, body);

  /** The bytes kasir hosts at one of its /v1/media links. */
  async function hosted(url: string): Promise<{ bytes: Buffer; type: string | null }> {
    const res = await kasir.app.request(url.slice('http://kasir.test'.length));
    expect(res.status).toBe(200);
    return { bytes: Buffer.from(await res.arrayBuffer()), type: res.headers.get('content-type') };
  }

  /** Asserts a refusal charged nothing and left the balance where it was. */
  async function expectNoCharge(answer: Answer, status: number, before: number) {
    expect(answer.status, JSON.stringify(answer.json)).toBe(status);
    expect(answer.charged).toBe('0');
    expect((await kasir.balance(accountId)).balance).toBe(before);
    expect((await kasir.balance(accountId)).held).toBe(0);
  }

  const balanceNow = async () => (await kasir.balance(accountId)).balance;

  describe('fal (queue)', () => {
    it('runs an image model through the queue, re-hosts every image, and charges exactly the quote', async () => {
      kasir.fal.setScript({ polls: 3 });
      const before = await balanceNow();
      const body = { model: FLUX, prompt: 'a lighthouse at dusk', num_images: 2 };
      const quote = kasir.quote(body);
      const reads = kasir.fal.statusReads;
      const answer = await post('/v1/images/generations', body);
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      expect(answer.json).toMatchObject({ model: FLUX, costMicroUsd: quote });
      expect(answer.charged).toBe(String(quote));
      expect(await balanceNow()).toBe(before - quote);
      expect(kasir.fal.statusReads - reads).toBe(4);
      const submit = kasir.fal.submits.at(-1);
      expect(submit?.endpoint).toBe('fal-ai/flux/schnell');
      expect(submit?.body).toMatchObject({ prompt: 'a lighthouse at dusk', num_images: 2 });
      expect(submit?.body.model).toBeUndefined();
      const output = answer.json.output;
      expect(output?.url).toMatch(/^http:\/\/kasir\.test\/v1\/media\/[0-9a-f]{32}\.png$/);
      expect(output?.files).toHaveLength(2);
      const upstreamFiles = [...kasir.fal.files.entries()].filter(([u]) =>
        u.includes(submit?.requestId ?? '?'),
      );
      for (const [i, file] of (output?.files ?? []).entries()) {
        const got = await hosted(file.url);
        expect(got.bytes.equals(upstreamFiles[i]?.[1].bytes ?? Buffer.alloc(0))).toBe(true);
        expect(got.type).toBe('image/png');
      }
      expect(JSON.stringify(answer.json)).not.toContain(kasir.fal.url);
    });

    it('serves the same model on /v1/infer, and refuses it on another capability route, naming the right one', async () => {
      const ok = await post('/v1/infer', { model: FLUX, prompt: 'a red kite' });
      expect(ok.status).toBe(200);
      expect(ok.json.output?.url).toMatch(/^http:\/\/kasir\.test\/v1\/media\//);
      const before = await balanceNow();
      const wrong = await post('/v1/audio/speech', { model: FLUX, prompt: 'a red kite' });
      await expectNoCharge(wrong, 400, before);
      expect(wrong.json.error?.message).toContain('call /v1/images/generations');
    });

    it('refuses bad input before any charge or submit', async () => {
      const submits = kasir.fal.submits.length;
      const before = await balanceNow();
      const answer = await post('/v1/images/generations', { model: FLUX, num_images: 9 });
      await expectNoCharge(answer, 400, before);
      expect(answer.json.error?.message).toMatch(/prompt/);
      expect(kasir.fal.submits.length).toBe(submits);
    });

    it.each([
      ['a failed submit', { submitStatus: 503 }, 502],
      ['a job the runner failed', { jobError: 'runner_error' }, 502],
      ['a content-policy refusal', { jobError: 'content_policy_violation' }, 400],
      ['a flagged (NSFW) image', { nsfw: true }, 400],
      ['a validation error on the result', { resultStatus: 422 }, 400],
      ['a result file off fal’s hosts', { resultUrl: 'http://169.254.169.254/latest/meta-data/x.png' }, 502],
      [
        'a result that is a web page, not the image fal said',
        { fileContent: Buffer.from('<html><script>alert(1)</script></html>') },
        502,
      ],
    ])('charges nothing for %s', async (_name, script, status) => {
      kasir.fal.setScript(script);
      const before = await balanceNow();
      const answer = await post('/v1/images/generations', { model: FLUX, prompt: 'x' });
      await expectNoCharge(answer, status, before);
      kasir.fal.setScript({});
    });

    it('gives up on a job past MEDIA_WAIT_MS, cancels it upstream, and charges nothing', async () => {
      kasir.fal.setScript({ polls: 100_000 });
      const before = await balanceNow();
      const answer = await post('/v1/video/generations', {
        model: 'kwaivgi/kling-v2.5-turbo-pro',
        prompt: 'waves',
      });
      await expectNoCharge(answer, 504, before);
      await new Promise((r) => setTimeout(r, 50));
      expect(kasir.fal.cancels).toContain(kasir.fal.submits.at(-1)?.requestId);
      kasir.fal.setScript({});
    });

    it('runs a video model and re-hosts the video byte for byte', async () => {
      kasir.fal.setScript({ fileBytes: 300_000 });
      const body = { model: 'kwaivgi/kling-v2.5-turbo-pro', prompt: 'waves', duration: '5' };
      const answer = await post('/v1/video/generations', body);
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      expect(answer.json.costMicroUsd).toBe(kasir.quote(body));
      const upstream = kasir.fal.files.get(
        [...kasir.fal.files.keys()].find((u) => u.includes(kasir.fal.submits.at(-1)?.requestId ?? '?')) ?? '',
      );
      const got = await hosted(String(answer.json.output?.url));
      expect(got.type).toBe('video/mp4');
      expect(got.bytes.equals(upstream?.bytes ?? Buffer.alloc(0))).toBe(true);
      expect(answer.json.output?.sizeBytes).toBe(300_000);
      kasir.fal.setScript({});
    });

    it('passes a public image URL on to fal and refuses private ones with a 400 naming the field', async () => {
      const ok = await post('/v1/images/generations', {
        model: KONTEXT,
        prompt: 'make it blue',
        image_url: `${filesUrl}/photo.png`,
      });
      expect(ok.status, JSON.stringify(ok.json)).toBe(200);
      expect(kasir.fal.submits.at(-1)?.body.image_url).toBe(`${filesUrl}/photo.png`);
      const submits = kasir.fal.submits.length;
      for (const url of [
        `${forbiddenUrl}/x.png`,
        'http://localhost/x.png',
        'http://169.254.169.254/latest/meta-data/',
        'http://[::1]/x.png',
        'http://0.0.0.0/x.png',
        'http://[::ffff:10.0.0.1]/x.png',
      ]) {
        const before = await balanceNow();
        const answer = await post('/v1/images/generations', { model: KONTEXT, prompt: 'x', image_url: url });
        await expectNoCharge(answer, 400, before);
        expect(answer.json.error?.param).toBe('image_url');
      }
      expect(kasir.fal.submits.length).toBe(submits);
    });

    it("sends kasir's own media and inline base64 to fal as data URIs", async () => {
      const upload = await kasir.app.request('/v1/media', {
        method: 'POST',
        body: PNG,
        headers: { 'content-type': 'image/png' },
      });
      const { url } = (await upload.json()) as { url: string };
      const own = await post('/v1/images/generations', { model: KONTEXT, prompt: 'x', image_url: url });
      expect(own.status, JSON.stringify(own.json)).toBe(200);
      expect(kasir.fal.submits.at(-1)?.body.image_url).toBe(
        `data:image/png;base64,${PNG.toString('base64')}`,
      );
      const inline = await post('/v1/images/generations', {
        model: KONTEXT,
        prompt: 'x',
        image_url_base64: PNG.toString('base64'),
      });
      expect(inline.status, JSON.stringify(inline.json)).toBe(200);
      expect(kasir.fal.submits.at(-1)?.body.image_url).toBe(
        `data:image/png;base64,${PNG.toString('base64')}`,
      );
    });

    it('transcribes through fal with the generic audio_url, answering the provider’s text body', async () => {
      const body = {
        model: 'openai/whisper-large-v3@fal',
        audio_url: `${filesUrl}/speech.mp3`,
        duration: 30,
      };
      const answer = await post('/v1/audio/transcriptions', body);
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      expect(answer.json.output).toMatchObject({
        text: expect.stringContaining('transcript of'),
        chunks: expect.any(Array),
      });
      expect(answer.json.costMicroUsd).toBe(kasir.quote(body));
      expect(kasir.fal.submits.at(-1)?.body.duration).toBeUndefined();
    });
  });

  describe('OpenAI (images, speech, transcriptions)', () => {
    it('generates images, re-hosting the base64 answers byte for byte', async () => {
      const before = await balanceNow();
      const body = { model: 'openai/gpt-image-1', prompt: 'a cat', n: 2, quality: 'low', size: '1024x1024' };
      const quote = kasir.quote(body);
      const answer = await post('/v1/images/generations', body);
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      expect(answer.charged).toBe(String(quote));
      expect(await balanceNow()).toBe(before - quote);
      expect(openai.requests.at(-1)?.json).toMatchObject({ model: 'gpt-image-1', prompt: 'a cat', n: 2 });
      const files = answer.json.output?.files ?? [];
      expect(files).toHaveLength(2);
      for (const [i, f] of files.entries()) {
        expect((await hosted(f.url)).bytes.equals(openai.produced[i] ?? Buffer.alloc(0))).toBe(true);
      }
    });

    it('speaks text, re-hosting the audio, charged per character', async () => {
      const body = {
        model: 'openai/tts-1',
        input: 'Selamat pagi, dunia',
        voice: 'alloy',
        response_format: 'wav',
      };
      const quote = kasir.quote(body);
      const answer = await post('/v1/audio/speech', body);
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      expect(answer.charged).toBe(String(quote));
      expect(answer.json.output).toMatchObject({
        contentType: 'audio/wav',
        sizeBytes: openai.produced[0]?.length,
      });
      const got = await hosted(String(answer.json.output?.url));
      expect(got.bytes.equals(openai.produced[0] ?? Buffer.alloc(0))).toBe(true);
    });

    it('transcribes a file given as a URL, a data URI, raw base64 or a kasir link, as multipart', async () => {
      const upload = await kasir.app.request('/v1/media', {
        method: 'POST',
        body: MP3,
        headers: { 'content-type': 'audio/mpeg' },
      });
      const own = ((await upload.json()) as { url: string }).url;
      const inputs: Array<Record<string, unknown>> = [
        { file: `${filesUrl}/speech.mp3` },
        { file: `data:audio/mpeg;base64,${MP3.toString('base64')}` },
        { audio_base64: MP3.toString('base64') },
        { audio_url: own },
      ];
      for (const input of inputs) {
        const body = { model: 'openai/whisper-1', duration: 60, ...input };
        const answer = await post('/v1/audio/transcriptions', body);
        expect(answer.status, JSON.stringify(answer.json)).toBe(200);
        expect(answer.json.output).toEqual({
          text: `heard ${MP3.length} bytes of audio/mpeg in audio.mp3`,
          usage: { type: 'duration', seconds: 3 },
        });
        expect(answer.json.costMicroUsd).toBe(
          kasir.quote({ model: 'openai/whisper-1', duration: 60, file: 'https://example.com/a.mp3' }),
        );
        const form = openai.requests.at(-1)?.form;
        expect(form?.get('model')).toBe('whisper-1');
        expect(form?.get('duration')).toBeNull();
      }
    });

    it('refuses private, redirected-to-private and oversized audio URLs with a 400 naming the field', async () => {
      const sent = openai.requests.length;
      for (const file of [
        `${forbiddenUrl}/speech.mp3`,
        `${filesUrl}/to-private`,
        'http://169.254.169.254/latest/meta-data/iam',
        `${filesUrl}/photo.png`,
        'ftp://example.com/a.mp3',
      ]) {
        const before = await balanceNow();
        const answer = await post('/v1/audio/transcriptions', { model: 'openai/whisper-1', file });
        await expectNoCharge(answer, 400, before);
        expect(answer.json.error?.param).toBe('file');
      }
      const before = await balanceNow();
      const junk = await post('/v1/audio/transcriptions', {
        model: 'openai/whisper-1',
        audio_base64: Buffer.from('not audio at all').toString('base64'),
      });
      await expectNoCharge(junk, 400, before);
      // Named as the caller sent it (audio_base64), not as kasir rewrote it for the model (file_base64).
      expect(junk.json.error?.param).toBe('audio_base64');
      expect(openai.requests.length).toBe(sent);
    });

    it('charges nothing when OpenAI fails', async () => {
      openai.setScript({ status: 500 });
      const before = await balanceNow();
      const answer = await post('/v1/audio/speech', { model: 'openai/tts-1', input: 'hi', voice: 'alloy' });
      await expectNoCharge(answer, 502, before);
      openai.setScript({ status: 400 });
      const refused = await post('/v1/images/generations', { model: 'openai/gpt-image-1', prompt: 'x' });
      await expectNoCharge(refused, 400, before);
      openai.setScript({});
    });
  });

  it('runs a chat model on /v1/infer with the completion nested under output', async () => {
    const body = {
      model: 'anthropic/claude-haiku-4-5',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 16,
    };
    const answer = await post('/v1/infer', body);
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    expect(answer.json).toMatchObject({ model: body.model, costMicroUsd: kasir.quote(body) });
    expect(answer.json.output).toMatchObject({ object: 'chat.completion', choices: expect.any(Array) });
    const tool = await post('/v1/infer', { model: 'tools/exchange-rate' });
    expect(tool.status).toBe(400);
    expect(tool.json.error?.message).toContain('POST /v1/tools/exchange-rate');
  });

  it('refuses a bad FETCH_ALLOWED_HOSTS at start-up, naming the entry', async () => {
    const { loadConfig } = await import('../../src/config/load.js');
    expect(() => loadConfig({ FETCH_ALLOWED_HOSTS: '127.0.0.1:8080,intranet' })).toThrow(
      /FETCH_ALLOWED_HOSTS: "intranet" is not host:port/,
    );
  });

  it('lists the models of configured media providers as available', async () => {
    const res = await kasir.app.request('/v1/models');
    const { models } = (await res.json()) as { models: Array<{ id: string; available: boolean }> };
    const byId = new Map(models.map((m) => [m.id, m.available]));
    expect(byId.get(FLUX)).toBe(true);
    expect(byId.get('openai/tts-1')).toBe(true);
    expect(byId.get('openai/sora-2')).toBe(true);
    expect(byId.get('elevenlabs/eleven_v3')).toBe(false);
  });
});
