// The spec's input names for media models are accepted on every route that sells them, and every error names the
// field the caller sent: image-to-video `image`, video-to-video `video_uri`, `image_base64`, reference `images`,
// speech `text`; on /v1/video/generations, /v1/infer and the wallet route (which then answers its 402).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PaidKasir, startPaidKasir } from '../support/paid.js';
import { postPaid } from '../support/paid-call.js';

const I2V = 'kwaivgi/kling-v2.1-standard-i2v';
const V2V = 'wan-video/wan-2.2-v2v';
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

interface Json {
  error?: { code: string; message: string; param?: string };
  output?: { url?: string };
  costMicroUsd?: number;
}

describe('the spec’s input names for media models', () => {
  let kasir: PaidKasir;
  let files: Server;
  let filesUrl: string;
  let key: string;
  let accountId: string;
  beforeAll(async () => {
    files = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(PNG));
    await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
    filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    kasir = await startPaidKasir('sqlite', { FETCH_ALLOWED_HOSTS: filesUrl.slice('http://'.length) });
    ({ key, accountId } = await kasir.fundedKey(100_000_000));
  });
  afterAll(async () => {
    await kasir.stop();
    await new Promise((r) => files.close(r));
  });

  const post = (path: string, body: Record<string, unknown>) => postPaid<Json>(kasir, key, path, body);

  it('image-to-video takes `image` (the spec’s name): the model’s image_url is filled, 200, charged the quote', async () => {
    const body = { model: I2V, image: `${filesUrl}/cat.png`, prompt: 'the cat yawns', duration: '5' };
    const quote = kasir.quote({ ...body, image: undefined, image_url: body.image });
    const answer = await post('/v1/video/generations', body);
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    expect(answer.charged).toBe(String(quote));
    expect(kasir.fal.submits.at(-1)?.body).toMatchObject({ image_url: `${filesUrl}/cat.png` });
    expect(kasir.fal.submits.at(-1)?.body.image).toBeUndefined();
  });

  it('video-to-video takes `video_uri` (the spec’s name) on /v1/infer', async () => {
    const answer = await post('/v1/infer', {
      model: V2V,
      video_uri: `${filesUrl}/clip.mp4`,
      prompt: 'in snow',
    });
    // The fake file host serves a PNG: what matters here is that the name is taken (no "video_url is required").
    expect(answer.json.error?.message ?? '').not.toContain('video_url is required');
    expect(kasir.fal.submits.at(-1)?.body).toMatchObject({ video_url: `${filesUrl}/clip.mp4` });
  });

  it('errors name the field the caller sent, never an internal rewrite; nothing is charged', async () => {
    const before = (await kasir.balance(accountId)).balance;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ model: I2V, image: 'not a url', prompt: 'x' }, 'image'],
      [
        { model: I2V, image_base64: Buffer.from('not an image').toString('base64'), prompt: 'x' },
        'image_base64',
      ],
      [
        { model: I2V, image_url_base64: Buffer.from('nope').toString('base64'), prompt: 'x' },
        'image_url_base64',
      ],
      [{ model: I2V, image: `${filesUrl}/a.png`, image_url: `${filesUrl}/b.png`, prompt: 'x' }, 'image'],
      [{ model: V2V, video_uri: 'ftp://example.com/v.mp4', prompt: 'x' }, 'video_uri'],
      [{ model: 'openai/tts-1', text: 'a'.repeat(4097), voice: 'alloy' }, 'text'],
    ];
    for (const [body, field] of cases) {
      const answer = await post('/v1/infer', body);
      expect(answer.status, JSON.stringify(answer.json)).toBe(400);
      expect(answer.json.error?.param, JSON.stringify(answer.json)).toBe(field);
      expect(answer.json.error?.message).toMatch(new RegExp(`^invalid input: ${field}[:\\[]`));
      expect(answer.charged).toBe('0');
    }
    expect((await kasir.balance(accountId)).balance).toBe(before);
  });

  it('speech takes `text` where the model calls it `input`', () => {
    // Validation only (no OpenAI speech upstream here): the spec's name passes as the model's own.
    return import('../../src/offers/media-files.js').then(async ({ inlineFileAliases }) => {
      const entry = kasir.deps.catalog.find('openai/tts-1');
      if (entry?.kind !== 'model') throw new Error('no openai/tts-1');
      const body: Record<string, unknown> = { text: 'hello', voice: 'alloy' };
      await inlineFileAliases(entry, body);
      expect(body).toEqual({ input: 'hello', voice: 'alloy' });
      expect(kasir.deps.catalog.validate(entry, body).ok).toBe(true);
    });
  });

  it('the wallet route takes the spec’s names too: a valid body is answered with its 402 challenge', async () => {
    const res = await kasir.app.request(`/x402/${I2V}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ image: `${filesUrl}/cat.png`, prompt: 'x' }),
    });
    expect(res.status, await res.clone().text()).not.toBe(400);
  });
});
