// OpenAI's Sora end to end on each database (the fake OpenAI media upstream speaking the Videos API): a video created
// as multipart/form-data, polled to its end, its MP4 streamed from the content endpoint with the key and re-hosted
// byte for byte, charged the quote; an image reference sent as a file part; an async job; bad input, moderation
// refusals, failed videos, upstream errors and timeouts (the video deleted upstream, best effort) charged nothing;
// and the same model bought by an x402 wallet on its per-model route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAiMedia, startFakeOpenAiMedia } from '../fakes/openai-media-upstream.js';
import { DB_TARGETS, postJson } from '../support/app.js';
import { evmFixture } from '../support/evm-wallet.js';
import { type PaidKasir, startPaidKasir } from '../support/paid.js';
import { hostedBytes, postPaid } from '../support/paid-call.js';
import { paidWithWallet, type WalletFixture } from '../support/wallet-suite.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const PNG_URI = `data:image/png;base64,${PNG.toString('base64')}`;

describe.each(DB_TARGETS)('OpenAI Sora on %s', (db) => {
  let kasir: PaidKasir;
  let openai: FakeOpenAiMedia;
  let key: string;
  let accountId: string;

  beforeAll(async () => {
    openai = await startFakeOpenAiMedia({ apiKey: 'sk-sora' });
    kasir = await startPaidKasir(db, {
      OPENAI_API_KEY: 'sk-sora',
      OPENAI_BASE_URL: openai.url,
      MEDIA_WAIT_MS: '700',
    });
    ({ key, accountId } = await kasir.fundedKey(50_000_000));
  });
  afterAll(async () => {
    await kasir.stop();
    await openai.close();
  });

  type Output = { url: string; contentType: string; sizeBytes: number };
  const post = (path: string, body: Record<string, unknown>, prefer?: string) =>
    postPaid<{
      model?: string;
      costMicroUsd?: number;
      job_id?: string;
      status_url?: string;
      output?: Output;
      error?: { code?: string; message?: string; param?: string };
    }>(kasir, key, path, body, prefer ? { prefer } : {});
  const video = (body: Record<string, unknown>, prefer?: string) =>
    post('/v1/video/generations', body, prefer);
  /** The text parts of the last create, as OpenAI received them. */
  const lastCreate = () => {
    const form = openai.requests.filter((r) => r.path === '/v1/videos').at(-1)?.form;
    return Object.fromEntries([...(form?.entries() ?? [])].filter(([, v]) => typeof v === 'string'));
  };
  const creates = () => openai.requests.filter((r) => r.path === '/v1/videos').length;

  it('creates a video, polls it to completed and re-hosts its MP4 byte for byte at the quote', async () => {
    const body = { model: 'openai/sora-2', prompt: 'ombak di pantai Kuta', seconds: '8', size: '1280x720' };
    const before = await kasir.balance(accountId);
    const answer = await video(body);
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    expect(kasir.quote(body)).toBe(800_000);
    expect(answer.charged).toBe(String(kasir.quote(body)));
    expect(answer.json.costMicroUsd).toBe(kasir.quote(body));
    expect(await kasir.balance(accountId)).toEqual({ balance: before.balance - 800_000, held: 0 });
    expect(lastCreate()).toEqual({
      model: 'sora-2',
      prompt: 'ombak di pantai Kuta',
      seconds: '8',
      size: '1280x720',
    });
    const made = openai.videos.last();
    expect(made?.reads).toBeGreaterThanOrEqual(3);
    expect(openai.videos.downloads.at(-1)).toEqual({ id: made?.id, variant: 'video' });
    expect(answer.json.output).toMatchObject({ contentType: 'video/mp4', sizeBytes: 64 * 1024 });
    expect(answer.json.output?.url).toMatch(/^http:\/\/kasir\.test\/v1\/media\//);
    expect(
      (await hostedBytes(kasir, String(answer.json.output?.url))).equals(made?.mp4 ?? Buffer.alloc(0)),
    ).toBe(true);
  });

  it('runs on /v1/infer too, sending an image reference as the input_reference file part', async () => {
    const body = { model: 'sora-2', prompt: 'kucing menari', input_reference: PNG_URI };
    const answer = await post('/v1/infer', body);
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    expect(answer.json.model).toBe('openai/sora-2');
    // The schema's defaults reach OpenAI: 4 seconds, portrait.
    expect(answer.charged).toBe('400000');
    expect(lastCreate()).toEqual({
      model: 'sora-2',
      prompt: 'kucing menari',
      seconds: '4',
      size: '720x1280',
    });
    const reference = openai.videos.last()?.reference;
    expect(reference?.type).toBe('image/png');
    expect(reference?.name).toBe('image.png');
    expect(reference?.bytes.equals(PNG)).toBe(true);
    const made = openai.videos.last();
    expect(
      (await hostedBytes(kasir, String(answer.json.output?.url))).equals(made?.mp4 ?? Buffer.alloc(0)),
    ).toBe(true);
  });

  it('takes the reference as raw base64 too, in input_reference_base64 or the generic image_base64', async () => {
    for (const field of ['input_reference_base64', 'image_base64']) {
      const body = { model: 'openai/sora-2', prompt: 'perahu', [field]: PNG.toString('base64') };
      const answer = await video(body);
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      expect(answer.charged).toBe('400000');
      expect(openai.videos.last()?.reference?.bytes.equals(PNG)).toBe(true);
    }
  });

  it('runs as an async job: 202, then the status URL answers the synchronous body; captured once it succeeds', async () => {
    const { key: jobKey, accountId: jobAccount } = await kasir.fundedKey(5_000_000);
    const body = { model: 'openai/sora-2', prompt: 'sawah di Ubud', seconds: '12', size: '720x1280' };
    openai.setScript({ video: { polls: 6 } });
    const accepted = await postPaid<{ job_id: string; status_url: string; status: string }>(
      kasir,
      jobKey,
      '/v1/video/generations',
      body,
      { prefer: 'respond-async' },
    );
    openai.setScript({});
    expect(accepted.status, JSON.stringify(accepted.json)).toBe(202);
    expect(accepted.charged).toBe('0');
    expect(accepted.json.status_url).toMatch(new RegExp(`/v1/jobs/${accepted.json.job_id}$`));
    let job: { status?: string; result?: { model: string; costMicroUsd: number; output: Output } } = {};
    for (let i = 0; i < 300 && job.status !== 'succeeded' && job.status !== 'failed'; i++) {
      await new Promise((r) => setTimeout(r, 10));
      job = (await (await kasir.app.request(`/v1/jobs/${accepted.json.job_id}`)).json()) as typeof job;
    }
    expect(job.status, JSON.stringify(job)).toBe('succeeded');
    expect(job.result?.model).toBe('openai/sora-2');
    expect(job.result?.costMicroUsd).toBe(kasir.quote(body));
    expect(job.result?.output.contentType).toBe('video/mp4');
    const made = openai.videos.last();
    expect(
      (await hostedBytes(kasir, String(job.result?.output.url))).equals(made?.mp4 ?? Buffer.alloc(0)),
    ).toBe(true);
    expect(await kasir.balance(jobAccount)).toEqual({ balance: 5_000_000 - kasir.quote(body), held: 0 });
  });

  it('refuses bad input with a 400 naming the field, before any charge or create', async () => {
    const before = await kasir.balance(accountId);
    const count = creates();
    for (const [body, field] of [
      [{ model: 'openai/sora-2', seconds: '4' }, 'prompt'],
      [{ model: 'openai/sora-2', prompt: 'x', seconds: '5' }, 'seconds'],
      [{ model: 'openai/sora-2', prompt: 'x', seconds: 8 }, 'seconds'],
      [{ model: 'openai/sora-2', prompt: 'x', size: '1792x1024' }, 'size'],
      [
        { model: 'openai/sora-2', prompt: 'x', input_reference: 'http://169.254.169.254/a.png' },
        'input_reference',
      ],
      [
        { model: 'openai/sora-2', prompt: 'x', input_reference: 'data:audio/mpeg;base64,SUQz' },
        'input_reference',
      ],
    ] as const) {
      const answer = await video(body);
      expect(answer.status, JSON.stringify(answer.json)).toBe(400);
      expect(answer.json.error?.param).toBe(field);
      expect(answer.charged ?? '0').toBe('0');
    }
    expect(creates()).toBe(count);
    expect(await kasir.balance(accountId)).toEqual({ ...before, held: 0 });
  });

  it.each([
    [
      'a moderation refusal',
      {
        video: {
          failure: {
            code: 'moderation_blocked',
            message: 'Your request was blocked by our moderation system.',
          },
        },
      },
      400,
      /moderation_blocked/,
    ],
    [
      'a failed video',
      { video: { failure: { code: 'internal_error', message: 'Video generation failed.' } } },
      502,
      /Video generation failed/,
    ],
    ['a server error', { status: 500 }, 502, /openai failed \(HTTP 500\)/],
    ['an overloaded API', { status: 429 }, 502, /HTTP 429/],
  ])('charges nothing for %s', async (_name, script, status, message) => {
    openai.setScript(script);
    const before = await kasir.balance(accountId);
    const answer = await video({ model: 'openai/sora-2', prompt: 'x', seconds: '4' });
    openai.setScript({});
    expect(answer.status, JSON.stringify(answer.json)).toBe(status);
    expect(answer.json.error?.message).toMatch(message);
    expect(answer.charged).toBe('0');
    expect(await kasir.balance(accountId)).toEqual({ ...before, held: 0 });
  });

  it('gives up past MEDIA_WAIT_MS, asks OpenAI to delete the video, and charges nothing', async () => {
    openai.setScript({ video: { polls: 10_000 } });
    const before = await kasir.balance(accountId);
    const answer = await video({ model: 'openai/sora-2', prompt: 'x', seconds: '4' });
    openai.setScript({});
    expect(answer.status, JSON.stringify(answer.json)).toBe(504);
    expect(answer.charged).toBe('0');
    const id = openai.videos.last()?.id;
    // Still rendering, so the API refuses the delete: the call was given up all the same, uncharged.
    await expect.poll(() => openai.videos.deletes.find((d) => d.id === id)).toEqual({ id, status: 400 });
    expect(await kasir.balance(accountId)).toEqual({ ...before, held: 0 });
  });

  it('lists Sora as available once OPENAI_API_KEY is set', async () => {
    const res = await kasir.app.request('/v1/models');
    const { models } = (await res.json()) as { models: Array<{ id: string; available: boolean }> };
    expect(models.find((m) => m.id === 'openai/sora-2')?.available).toBe(true);
  });
});

describe('OpenAI Sora on the x402 per-model route (Base, sqlite)', () => {
  let fx: WalletFixture;
  let kasir: PaidKasir;
  let openai: FakeOpenAiMedia;

  beforeAll(async () => {
    fx = await evmFixture('BASE', {});
    openai = await startFakeOpenAiMedia({ apiKey: 'sk-sora' });
    kasir = await startPaidKasir('sqlite', {
      ...fx.env,
      OPENAI_API_KEY: 'sk-sora',
      OPENAI_BASE_URL: openai.url,
      MEDIA_WAIT_MS: '700',
    });
  }, 60_000);
  afterAll(async () => {
    await kasir?.stop();
    await openai?.close();
    await fx?.close();
  });

  const paid = (body: Record<string, unknown>) =>
    paidWithWallet(fx, (headers) => postJson(kasir, '/x402/openai/sora-2', body, headers));

  it('names the quote in its 402, and the paid call answers the re-hosted video; the wallet pays exactly that', async () => {
    const body = { prompt: 'layang-layang di Sanur', seconds: '4', size: '1280x720' };
    const quote = kasir.quote({ model: 'openai/sora-2', ...body });
    const before = await fx.payerBalance();
    const { res, amount } = await paid(body);
    expect(res.status, await res.clone().text()).toBe(200);
    const answer = (await res.json()) as {
      costMicroUsd: number;
      output: { url: string; contentType: string };
    };
    expect(answer.costMicroUsd).toBe(quote);
    expect(amount).toBe(BigInt(answer.costMicroUsd));
    expect(before - (await fx.payerBalance())).toBe(BigInt(quote));
    expect(answer.output.contentType).toBe('video/mp4');
    const made = openai.videos.last();
    expect((await hostedBytes(kasir, answer.output.url)).equals(made?.mp4 ?? Buffer.alloc(0))).toBe(true);
  });

  it('takes nothing from the wallet when OpenAI refuses the prompt', async () => {
    openai.setScript({
      video: { failure: { code: 'moderation_blocked', message: 'Blocked by moderation.' } },
    });
    const before = await fx.payerBalance();
    const { res } = await paid({ prompt: 'x', seconds: '4' });
    openai.setScript({});
    expect(res.status).toBe(400);
    expect(await fx.payerBalance()).toBe(before);
  });
});
