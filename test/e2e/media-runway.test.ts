// Runway's video tasks end to end on each database (a local fake in Runway's wire format): text, image and video to
// video submitted to the right endpoint, polled to the end, the output re-hosted byte for byte and charged the
// quote; an async job; bad input, failed tasks, upstream errors and timeouts (cancelled upstream) charged nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeRunway, startFakeRunway } from '../fakes/runway-upstream.js';
import { DB_TARGETS } from '../support/app.js';
import { type PaidKasir, startPaidKasir } from '../support/paid.js';
import { expectQuoteCharged, hostedBytes, postPaid } from '../support/paid-call.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const PNG_URI = `data:image/png;base64,${PNG.toString('base64')}`;
/** Allowlisted as FETCH_ALLOWED_HOSTS allows: passed on for Runway to fetch, never fetched by kasir. */
const PUBLIC_VIDEO = 'http://127.0.0.1:8998/clip.mp4';

describe.each(DB_TARGETS)('Runway video models on %s', (db) => {
  let kasir: PaidKasir;
  let runway: FakeRunway;
  let key: string;
  let accountId: string;

  beforeAll(async () => {
    runway = await startFakeRunway({ secret: 'rw-fake' });
    kasir = await startPaidKasir(db, {
      RUNWAYML_API_SECRET: 'rw-fake',
      RUNWAY_BASE_URL: runway.url,
      FETCH_ALLOWED_HOSTS: '127.0.0.1:8998',
      MEDIA_WAIT_MS: '700',
    });
    ({ key, accountId } = await kasir.fundedKey(50_000_000));
  });
  afterAll(async () => {
    await kasir.stop();
    await runway.close();
  });

  const post = (body: Record<string, unknown>, prefer?: string) =>
    postPaid<{
      costMicroUsd?: number;
      job_id?: string;
      output?: { url: string; contentType: string; sizeBytes: number };
      error?: { param?: string };
    }>(kasir, key, '/v1/video/generations', body, prefer ? { prefer } : {});
  const bytesAt = (url: string) => hostedBytes(kasir, url);
  const lastOutput = () => [...runway.files.values()].at(-1) ?? Buffer.alloc(0);

  it('generates text to video, re-hosting the task output byte for byte at the quote', async () => {
    const body = {
      model: 'runwayml/gen4.5',
      promptText: 'ombak di pantai Kuta',
      ratio: '1280:720',
      duration: 4,
    };
    const answer = await post(body);
    expectQuoteCharged(kasir, answer, body);
    expect(answer.json.costMicroUsd).toBe(kasir.quote(body));
    expect(runway.creates.at(-1)).toEqual({
      path: '/v1/text_to_video',
      version: '2024-11-06',
      body: { model: 'gen4.5', promptText: 'ombak di pantai Kuta', ratio: '1280:720', duration: 4 },
    });
    expect(answer.json.output?.contentType).toBe('video/mp4');
    expect(answer.json.output?.url).toMatch(/^http:\/\/kasir\.test\/v1\/media\//);
    expect((await bytesAt(String(answer.json.output?.url))).equals(lastOutput())).toBe(true);
  });

  it('sends an inline image to image_to_video as a data URI', async () => {
    const body = { model: 'runwayml/gen4_turbo', promptImage: PNG_URI, ratio: '960:960', duration: 2 };
    const answer = await post(body);
    expectQuoteCharged(kasir, answer, body);
    expect(runway.creates.at(-1)).toMatchObject({
      path: '/v1/image_to_video',
      body: { model: 'gen4_turbo', promptImage: PNG_URI, ratio: '960:960' },
    });
  });

  it('sends video to video with its references as Runway’s objects, billing the declared length', async () => {
    const body = {
      model: 'runwayml/gen4_aleph',
      videoUri: PUBLIC_VIDEO,
      promptText: 'make it night',
      references: [PNG_URI],
      duration: 8,
    };
    const answer = await post(body);
    expectQuoteCharged(kasir, answer, body);
    const sent = runway.creates.at(-1);
    expect(sent?.path).toBe('/v1/video_to_video');
    expect(sent?.body).toEqual({
      model: 'gen4_aleph',
      videoUri: PUBLIC_VIDEO,
      promptText: 'make it night',
      references: [{ type: 'image', uri: PNG_URI }],
    });
    expect((await bytesAt(String(answer.json.output?.url))).equals(lastOutput())).toBe(true);
  });

  it('runs as an async job, captured when the task succeeds', async () => {
    const body = { model: 'runwayml/gen4.5', promptText: 'sawah', ratio: '720:1280', duration: 2 };
    const accepted = await post(body, 'respond-async');
    expect(accepted.status, JSON.stringify(accepted.json)).toBe(202);
    let job: { status?: string; result?: { costMicroUsd: number; output: { url: string } } } = {};
    for (let i = 0; i < 200 && job.status !== 'succeeded' && job.status !== 'failed'; i++) {
      await new Promise((r) => setTimeout(r, 10));
      job = (await (await kasir.app.request(`/v1/jobs/${accepted.json.job_id}`)).json()) as typeof job;
    }
    expect(job.status, JSON.stringify(job)).toBe('succeeded');
    expect(job.result?.costMicroUsd).toBe(kasir.quote(body));
    expect((await bytesAt(String(job.result?.output.url))).equals(lastOutput())).toBe(true);
  });

  it('refuses bad input with a 400 naming the field, charging nothing', async () => {
    const before = await kasir.balance(accountId);
    const creates = runway.creates.length;
    for (const [body, field] of [
      [{ model: 'runwayml/gen4_turbo', promptImage: PNG_URI }, 'ratio'],
      [
        { model: 'runwayml/gen4_turbo', promptImage: 'http://169.254.169.254/x.png', ratio: '960:960' },
        'promptImage',
      ],
      [{ model: 'runwayml/gen4_aleph', videoUri: 'http://[::1]/v.mp4', promptText: 'x' }, 'videoUri'],
      [{ model: 'runwayml/gen4.5', promptText: 'x', ratio: '1280:720', duration: 11 }, 'duration'],
      // gen4.5 from text alone: 1280:720 and 720:1280 only.
      [{ model: 'runwayml/gen4.5', promptText: 'x', ratio: '960:960', duration: 2 }, 'ratio'],
    ] as const) {
      const answer = await post(body);
      expect(answer.status, JSON.stringify(answer.json)).toBe(400);
      expect(answer.json.error?.param).toBe(field);
      expect(answer.charged ?? '0').toBe('0');
    }
    expect(runway.creates.length).toBe(creates);
    expect(await kasir.balance(accountId)).toEqual({ ...before, held: 0 });
  });

  it.each([
    ['a safety refusal', { failure: { failure: 'Prompt flagged', failureCode: 'SAFETY.INPUT.TEXT' } }, 400],
    ['a failed task', { failure: { failure: 'An unexpected error occurred', failureCode: 'INTERNAL' } }, 502],
    ['a refused create', { createStatus: 400 }, 400],
    ['a server error', { createStatus: 500 }, 502],
  ])('charges nothing for %s', async (_name, script, status) => {
    runway.setScript(script);
    const before = await kasir.balance(accountId);
    const answer = await post({ model: 'runwayml/gen4.5', promptText: 'x', ratio: '1280:720', duration: 2 });
    runway.setScript({});
    expect(answer.status, JSON.stringify(answer.json)).toBe(status);
    expect(answer.charged).toBe('0');
    expect(await kasir.balance(accountId)).toEqual({ ...before, held: 0 });
  });

  it('gives up past MEDIA_WAIT_MS, cancels the task upstream, and charges nothing', async () => {
    runway.setScript({ polls: 10_000 });
    const before = await kasir.balance(accountId);
    const answer = await post({ model: 'runwayml/gen4.5', promptText: 'x', ratio: '1280:720', duration: 2 });
    runway.setScript({});
    expect(answer.status).toBe(504);
    expect(answer.charged).toBe('0');
    await expect.poll(() => runway.cancels.length).toBeGreaterThan(0);
    expect(await kasir.balance(accountId)).toEqual({ ...before, held: 0 });
  });
});
