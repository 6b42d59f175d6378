// Recipes end to end on each database: a prompt becomes an image and the image a video through fal's queue (a
// local fake in its wire format); the answer lists every step and the final link, the re-hosted bytes are the
// upstream's, the video step gets the image's own bytes, and the charge is the quote — nothing when any step fails.
// Media are stored on the disk and in an S3 bucket (a real S3-compatible server in CI).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson } from '../support/app.js';
import { useBaseWalletKasir } from '../support/evm-wallet.js';
import { bearer, type PaidKasir, startPaidKasir } from '../support/paid.js';
import { hostedBytes, postPaid } from '../support/paid-call.js';
import { DB_STORE_TARGETS, openMediaStore } from '../support/s3.js';
import { paidWithWallet } from '../support/wallet-suite.js';

const FUNDS = 20_000_000;
const FLUX = 'fal-ai/flux/schnell';
const KLING = 'fal-ai/kling-video/v2.5-turbo/pro/image-to-video';
const VEO_FAST = 'fal-ai/veo3.1/fast/image-to-video';

interface Step {
  step: string;
  model?: string;
  output: Record<string, unknown> & { url?: string; prompt?: string };
}
interface RecipeBody {
  recipe?: string;
  costMicroUsd?: number;
  steps?: Step[];
  url?: string;
  receipt?: unknown;
  error?: { code: string; message: string; param?: string };
}

describe.each(DB_STORE_TARGETS)('recipes on %s with %s media', (db, _label, store) => {
  let kasir: PaidKasir;
  let media: Awaited<ReturnType<typeof openMediaStore>>;
  let key: string;
  let accountId: string;

  beforeAll(async () => {
    media = await openMediaStore(store);
    kasir = await startPaidKasir(db, media.env);
    ({ key, accountId } = await kasir.fundedKey(FUNDS));
  });
  afterAll(async () => {
    await kasir.stop();
    await media?.close();
  });

  const run = (name: string, body: Record<string, unknown>) =>
    postPaid<RecipeBody>(kasir, key, `/v1/recipes/${name}`, body);
  const submitsSince = (n: number) => kasir.fal.submits.slice(n);
  /** The bytes of the file fal produced for one submitted request. */
  const upstreamFile = (requestId: string) =>
    [...kasir.fal.files.entries()].find(([url]) => url.includes(requestId))?.[1].bytes;

  it('runs prompt → image → video, re-hosts both files and charges exactly the recipe price', async () => {
    kasir.fal.setScript({ polls: 2 });
    const before = await kasir.balance(accountId);
    const seen = kasir.fal.submits.length;
    const res = await run('prompt-to-video', { prompt: 'a lighthouse at dawn' });
    expect(res.status).toBe(200);
    expect(res.charged).toBe('445550');
    expect(res.json).toMatchObject({ recipe: 'recipes/prompt-to-video', costMicroUsd: 445_550 });
    const [image, video] = res.json.steps as [Step, Step];
    expect(image).toMatchObject({ step: 'image', model: 'black-forest-labs/flux-schnell@fal' });
    expect(video).toMatchObject({ step: 'video', model: 'kwaivgi/kling-v2.5-turbo-pro-i2v' });
    expect(image.output).toMatchObject({ contentType: 'image/png' });
    expect(video.output).toMatchObject({ contentType: 'video/mp4' });
    expect(res.json.url).toBe(video.output.url);
    expect(res.json.url).toMatch(/^http:\/\/kasir\.test\/v1\/media\//);

    const [imageSubmit, videoSubmit] = submitsSince(seen);
    expect(imageSubmit?.endpoint).toBe(FLUX);
    expect(imageSubmit?.body).toMatchObject({ prompt: 'a lighthouse at dawn', image_size: 'landscape_16_9' });
    expect(videoSubmit?.endpoint).toBe(KLING);
    expect(videoSubmit?.body).toMatchObject({
      prompt: 'a lighthouse at dawn, gentle camera movement, natural motion',
      duration: '5',
    });
    // Kasir's bytes are fal's, and the video step was given the image itself (read from the media store).
    const imageBytes = await hostedBytes(kasir, image.output.url as string);
    expect(imageBytes.equals(upstreamFile(imageSubmit?.requestId ?? '?') as Buffer)).toBe(true);
    const videoBytes = await hostedBytes(kasir, video.output.url as string);
    expect(videoBytes.equals(upstreamFile(videoSubmit?.requestId ?? '?') as Buffer)).toBe(true);
    const sent = String(videoSubmit?.body.image_url);
    expect(sent.startsWith('data:image/png;base64,')).toBe(true);
    expect(Buffer.from(sent.slice(sent.indexOf(',') + 1), 'base64').equals(imageBytes)).toBe(true);

    const after = await kasir.balance(accountId);
    expect(before.balance - after.balance).toBe(445_550);
    expect(after.held).toBe(0);
    expect(await kasir.ledger(accountId)).toEqual(after);
  });

  it('invents a random character when the recipe takes no prompt', async () => {
    kasir.fal.setScript({});
    const seen = kasir.fal.submits.length;
    const res = await run('random-character', {});
    expect(res.status).toBe(200);
    expect(res.charged).toBe('997500');
    const [character, image, video] = res.json.steps as [Step, Step, Step];
    expect(character.step).toBe('character');
    const prompt = String(character.output.prompt);
    expect(prompt).toMatch(/^Portrait of /);
    expect(image.model).toBe('google/nano-banana');
    expect(video.model).toBe('google/veo-3.1-fast-i2v');
    const [imageSubmit, videoSubmit] = submitsSince(seen);
    expect(imageSubmit?.body).toMatchObject({ prompt, aspect_ratio: '9:16' });
    expect(videoSubmit?.endpoint).toBe(VEO_FAST);
    expect(videoSubmit?.body).toMatchObject({
      duration: '6s',
      resolution: '720p',
      generate_audio: true,
      aspect_ratio: '9:16',
    });
    expect(String(videoSubmit?.body.prompt)).toContain(prompt);
  });

  it('prices a dearer choice of step at the sum of its steps, and charges that quote', async () => {
    kasir.fal.setScript({});
    const body = { prompt: 'a paper boat', duration: 10, motionPrompt: 'the boat drifts away' };
    const priced = await kasir.app.request('/v1/price', {
      method: 'POST',
      body: JSON.stringify({ model: 'recipes/prompt-to-video', ...body }),
      headers: { 'content-type': 'application/json' },
    });
    expect(priced.status).toBe(200);
    // A 10-second Kling video ($0.70) and one FLUX [schnell] megapixel ($0.003) cost more than the recipe's $0.44555.
    expect(await priced.json()).toMatchObject({ costMicroUsd: 703_000, prepaidCostMicroUsd: 703_000 });
    const unpaid = await kasir.app.request('/v1/recipes/prompt-to-video', {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });
    expect(unpaid.status).toBe(402);
    const seen = kasir.fal.submits.length;
    const res = await run('prompt-to-video', body);
    expect(res.status).toBe(200);
    expect(res.charged).toBe('703000');
    expect(submitsSince(seen)[1]?.body).toMatchObject({ duration: '10', prompt: 'the boat drifts away' });
  });

  it('refuses bad input with the field named, before any charge or upstream call', async () => {
    const before = await kasir.balance(accountId);
    const seen = kasir.fal.submits.length;
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['prompt-to-video', {}, 'prompt'],
      ['prompt-to-video', { prompt: 'x', duration: 7 }, 'duration'],
      ['prompt-to-video', { prompt: 'x', resolution: '4k' }, 'resolution'],
      ['prompt-to-video', { prompt: 'x', videoModel: 'black-forest-labs/flux-dev' }, 'videoModel'],
      ['prompt-to-video', { prompt: 'x', imageModel: 'no/such-model' }, 'imageModel'],
      ['prompt-to-video-1080p', { prompt: 'x', resolution: '8K' }, 'resolution'],
      ['random-character', { duration: '6' }, 'duration'],
    ];
    for (const [name, body, field] of cases) {
      const res = await run(name, body);
      expect(res.status, `${name} ${JSON.stringify(body)}`).toBe(400);
      expect(res.json.error?.code).toBe('invalid_input');
      expect(res.json.error?.message).toContain(field);
      expect(res.charged).toBe('0');
    }
    const unknown = await run('no-such-recipe', { prompt: 'x' });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error?.message).toContain('prompt-to-video');
    expect(kasir.fal.submits.length).toBe(seen);
    expect(await kasir.balance(accountId)).toEqual(before);
  });

  it('charges nothing when the video step fails after the image succeeded', async () => {
    kasir.fal.setScript({});
    kasir.fal.setEndpointScript(KLING, { jobError: 'runner_error' });
    try {
      const before = await kasir.balance(accountId);
      const seen = kasir.fal.submits.length;
      const res = await run('prompt-to-video', { prompt: 'a storm at sea' });
      expect(res.status).toBe(502);
      expect(res.json.error?.code).toBe('upstream_error');
      expect(res.charged).toBe('0');
      expect(submitsSince(seen).map((s) => s.endpoint)).toEqual([FLUX, KLING]);
      expect(await kasir.balance(accountId)).toEqual(before);
    } finally {
      kasir.fal.setEndpointScript(KLING, undefined);
    }
  });

  it('charges nothing and runs no video when the image step fails', async () => {
    kasir.fal.setEndpointScript(FLUX, { submitStatus: 503 });
    try {
      const before = await kasir.balance(accountId);
      const seen = kasir.fal.submits.length;
      const res = await run('prompt-to-video', { prompt: 'a quiet harbour' });
      expect(res.status).toBeGreaterThanOrEqual(502);
      expect(res.charged).toBe('0');
      expect(submitsSince(seen)).toEqual([]);
      expect(await kasir.balance(accountId)).toEqual(before);
    } finally {
      kasir.fal.setEndpointScript(FLUX, undefined);
    }
  });

  async function waitForJob(id: string): Promise<Record<string, unknown> & { status: string }> {
    for (let i = 0; i < 400; i++) {
      const body = (await (await kasir.app.request(`/v1/jobs/${id}`)).json()) as { status: string };
      if (body.status === 'succeeded' || body.status === 'failed') return body;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`job ${id} did not end`);
  }

  /** Starts the Veo recipe as an async job (Prefer: respond-async) on the funded key. */
  const startAsync = (prompt: string) =>
    postJson(
      kasir,
      '/v1/recipes/prompt-to-video-veo',
      { prompt },
      { prefer: 'respond-async', ...bearer(key) },
    );

  it('runs as an async job: 202 at once after the image, the result is the synchronous body, captured on success', async () => {
    kasir.fal.setScript({ polls: 3 });
    const before = await kasir.balance(accountId);
    const res = await startAsync('a paper boat in the rain');
    expect(res.status).toBe(202);
    expect(res.headers.get('x-service-charged-micro-usd')).toBe('0');
    const { job_id } = (await res.json()) as { job_id: string };
    const done = await waitForJob(job_id);
    expect(done.status, JSON.stringify(done)).toBe('succeeded');
    const result = done.result as RecipeBody;
    expect(result).toMatchObject({
      recipe: 'recipes/prompt-to-video-veo',
      costMicroUsd: 470_750,
      receipt: { rail: 'prepaid' },
    });
    const [image, video] = result.steps as [Step, Step];
    expect(image.model).toBe('google/nano-banana');
    expect(video).toMatchObject({ step: 'video', model: 'google/veo-3.1-fast-i2v' });
    expect(result.url).toBe(video.output.url);
    const videoSubmit = kasir.fal.submits.at(-1);
    expect(videoSubmit?.endpoint).toBe(VEO_FAST);
    const bytes = await hostedBytes(kasir, result.url as string);
    expect(bytes.equals(upstreamFile(videoSubmit?.requestId ?? '?') as Buffer)).toBe(true);
    expect(await kasir.balance(accountId)).toEqual({ balance: before.balance - 470_750, held: 0 });
  });

  it('releases an async recipe whose video job fails: nothing charged', async () => {
    kasir.fal.setScript({});
    kasir.fal.setEndpointScript(VEO_FAST, { polls: 2, jobError: 'runner_error' });
    try {
      const before = await kasir.balance(accountId);
      const res = await startAsync('a kite over the dunes');
      expect(res.status).toBe(202);
      const { job_id } = (await res.json()) as { job_id: string };
      const done = await waitForJob(job_id);
      expect(done).toMatchObject({ status: 'failed', error: { code: 'upstream_error' } });
      expect(await kasir.balance(accountId)).toEqual(before);
    } finally {
      kasir.fal.setEndpointScript(VEO_FAST, undefined);
    }
  });

  it('answers 503 before any payment when a step cannot run here, naming the recipe and the missing setting', async () => {
    const bare = await startPaidKasir(db, { FAL_KEY: '' });
    try {
      const models = (await (await bare.app.request('/v1/models')).json()) as {
        recipes: Array<{ available: boolean }>;
      };
      expect(models.recipes.every((r) => r.available === false)).toBe(true);
      const res = await bare.app.request('/v1/recipes/prompt-to-video', {
        method: 'POST',
        body: JSON.stringify({ prompt: 'x' }),
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(503);
      const body = (await res.json()) as { error: { code: string; message: string; details: unknown } };
      expect(body.error.code).toBe('not_configured');
      expect(body.error.message).toContain('recipes/prompt-to-video');
      expect(body.error.message).toContain('FAL_KEY');
      expect(body.error.details).toMatchObject({ recipe: 'recipes/prompt-to-video' });
    } finally {
      await bare.stop();
    }
  });

  it('lists the recipes with their prices, finds them by intent, and asks an unpaid caller for the quote', async () => {
    const models = (await (await kasir.app.request('/v1/models')).json()) as {
      recipes: Array<{ id: string; path: string; available: boolean; price: { prepaidMicroUsd: number } }>;
    };
    expect(models.recipes.map((r) => [r.id, r.price.prepaidMicroUsd, r.available])).toEqual([
      ['recipes/prompt-to-video', 445_550, true],
      ['recipes/prompt-to-video-1080p', 844_300, true],
      ['recipes/prompt-to-video-veo', 470_750, true],
      ['recipes/random-character', 997_500, true],
    ]);
    expect(models.recipes[0]?.path).toBe('/v1/recipes/prompt-to-video');
    const consult = (await (
      await kasir.app.request('/v1/consult?intent=random%20character%20video')
    ).json()) as { candidates: Array<{ kind: string; recipe?: string; path: string }> };
    expect(consult.candidates[0]).toMatchObject({
      kind: 'recipe',
      recipe: 'recipes/random-character',
      path: '/v1/recipes/random-character',
    });
    const open = await kasir.app.request('/v1/recipes/prompt-to-video-veo', {
      method: 'POST',
      body: JSON.stringify({ prompt: 'x' }),
      headers: { 'content-type': 'application/json' },
    });
    expect(open.status).toBe(402);
    const challenge = (await open.json()) as { error: { details: Record<string, unknown> } };
    expect(challenge.error.details).toMatchObject({
      recipe: 'recipes/prompt-to-video-veo',
      quote: { costMicroUsd: 470_750 },
    });
  });
});

describe('a recipe bought by an x402 wallet (Base, sqlite)', () => {
  const wallet = useBaseWalletKasir();

  const paid = (path: string, body: Record<string, unknown>) =>
    paidWithWallet(wallet.fx, (headers) => postJson(wallet.kasir, path, body, headers));

  it('pays /v1/recipes/{name} and /x402/recipes/{name} exactly the recipe price from the wallet', async () => {
    wallet.kasir.fal.setScript({});
    for (const path of ['/v1/recipes/prompt-to-video', '/x402/recipes/prompt-to-video']) {
      const before = await wallet.fx.payerBalance();
      const { res, amount } = await paid(path, { prompt: 'sunrise over Bromo' });
      expect(res.status, await res.clone().text()).toBe(200);
      const answer = (await res.json()) as RecipeBody & { output?: { steps: Step[]; url: string } };
      expect(answer).toMatchObject({ recipe: 'recipes/prompt-to-video', costMicroUsd: 445_550 });
      // The per-chain wallet routes nest the result under `output`, as they do for models.
      const steps = path.startsWith('/x402/') ? answer.output?.steps : answer.steps;
      expect(steps?.map((s) => s.step)).toEqual(['image', 'video']);
      expect(amount).toBe(445_550n);
      expect(before - (await wallet.fx.payerBalance())).toBe(445_550n);
    }
  });

  it('takes nothing from the wallet when the video step fails', async () => {
    wallet.kasir.fal.setEndpointScript(KLING, { jobError: 'runner_error' });
    try {
      const before = await wallet.fx.payerBalance();
      const { res } = await paid('/x402/recipes/prompt-to-video', { prompt: 'a storm' });
      expect(res.status).toBe(502);
      expect(await wallet.fx.payerBalance()).toBe(before);
    } finally {
      wallet.kasir.fal.setEndpointScript(KLING, undefined);
    }
  });
});
