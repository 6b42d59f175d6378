// Transient failures while a paid media job runs upstream: a 503 or a 429 (with Retry-After) on a status or result
// read is retried, and the job still answers 200 charged the quote (synchronously and as an async job); a queue
// that stays down is given up: the job is cancelled upstream, nothing is charged, and /metrics counts it.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type FakeReplicate, startFakeReplicate } from '../fakes/replicate-upstream.js';
import { bearer, type PaidKasir, startPaidKasir } from '../support/paid.js';
import { expectQuoteCharged, postPaid } from '../support/paid-call.js';

const VIDEO = { model: 'kwaivgi/kling-v2.5-turbo-pro', prompt: 'waves on a reef', duration: '5' };
const IMAGE = { model: 'black-forest-labs/flux-schnell', prompt: 'a teapot' };
const FUNDS = 50_000_000;

describe('media jobs through transient upstream failures', () => {
  let kasir: PaidKasir;
  let replicate: FakeReplicate;
  let key: string;
  let accountId: string;

  beforeAll(async () => {
    replicate = await startFakeReplicate({ token: 'r8_fake' });
    kasir = await startPaidKasir('sqlite', {
      REPLICATE_API_TOKEN: 'r8_fake',
      REPLICATE_BASE_URL: replicate.url,
      MEDIA_READ_RETRIES: '3',
      MEDIA_READ_RETRY_BASE_MS: '10',
      MEDIA_READ_RETRY_MAX_MS: '2000',
    });
    ({ key, accountId } = await kasir.fundedKey(FUNDS));
  });
  afterAll(async () => {
    await kasir.stop();
    await replicate.close();
  });

  const video = () =>
    postPaid<{ output?: { sizeBytes: number } }>(kasir, key, '/v1/video/generations', VIDEO);
  const image = () => postPaid<{ output?: { url: string } }>(kasir, key, '/v1/images/generations', IMAGE);
  /** The value of one /metrics counter series (0 when absent). */
  const counter = async (name: string, labels: string) => {
    const text = await (await kasir.app.request('/metrics')).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
    return line ? Number(line.split(' ').at(-1)) : 0;
  };

  it('survives a 503 on a status poll: the job succeeds and is charged the quote', async () => {
    const retries = await counter('kasir_upstream_read_retries_total', 'provider="fal",read="status"');
    kasir.fal.setScript({ polls: 2, statusFaults: [503] });
    const answer = await video();
    expectQuoteCharged(kasir, answer, VIDEO);
    expect(answer.json.output?.sizeBytes).toBe(2048);
    expect(kasir.fal.cancels).toEqual([]);
    expect(await counter('kasir_upstream_read_retries_total', 'provider="fal",read="status"')).toBe(
      retries + 1,
    );
  });

  it('waits out a 429 for its Retry-After before reading again, then charges the quote', async () => {
    kasir.fal.setScript({ polls: 1, statusFaults: [429], retryAfterSeconds: 1 });
    const started = Date.now();
    const answer = await video();
    expectQuoteCharged(kasir, answer, VIDEO);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });

  it('survives a 502 on the result read', async () => {
    kasir.fal.setScript({ polls: 1, resultFaults: [502, 504] });
    expectQuoteCharged(kasir, await video(), VIDEO);
  });

  it('gives up a queue that stays down: cancels the job upstream, charges nothing, counts the give-up', async () => {
    const gaveUp = await counter('kasir_upstream_read_give_ups_total', 'provider="fal",read="status"');
    const before = await kasir.balance(accountId);
    kasir.fal.setScript({ polls: 3, statusDown: 503 });
    const answer = await postPaid<{ error: { message: string } }>(kasir, key, '/v1/video/generations', VIDEO);
    expect(answer.status, JSON.stringify(answer.json)).toBe(502);
    expect(answer.charged).toBe('0');
    expect(answer.json.error.message).toMatch(/gave up and cancelled the job upstream/);
    const requestId = kasir.fal.submits.at(-1)?.requestId;
    await vi.waitFor(() => expect(kasir.fal.cancels).toContain(requestId));
    expect(await kasir.balance(accountId)).toEqual({ ...before, held: 0 });
    expect(await counter('kasir_upstream_read_give_ups_total', 'provider="fal",read="status"')).toBe(
      gaveUp + 1,
    );
    kasir.fal.setScript({});
  });

  it('an async job survives a 503 on a status poll and is captured at the quote', async () => {
    kasir.fal.setScript({ polls: 3, statusFaults: [503, 503] });
    const res = await kasir.app.request('/v1/video/generations', {
      method: 'POST',
      body: JSON.stringify(VIDEO),
      headers: { 'content-type': 'application/json', prefer: 'respond-async', ...bearer(key) },
    });
    expect(res.status).toBe(202);
    const { job_id } = (await res.json()) as { job_id: string };
    let done: { status: string; result?: { costMicroUsd: number } } = { status: 'queued' };
    await vi.waitFor(
      async () => {
        done = (await (await kasir.app.request(`/v1/jobs/${job_id}`)).json()) as typeof done;
        expect(['succeeded', 'failed']).toContain(done.status);
      },
      { timeout: 10_000, interval: 20 },
    );
    expect(done.status, JSON.stringify(done)).toBe('succeeded');
    expect(done.result?.costMicroUsd).toBe(kasir.quote(VIDEO));
    kasir.fal.setScript({});
  });

  it('Replicate: survives a 503 and a 429 on prediction reads; a prediction that stays unreadable is cancelled', async () => {
    replicate.setScript({ polls: 2, readFaults: [503, 429] });
    expectQuoteCharged(kasir, await image(), IMAGE);
    replicate.setScript({ polls: 2, readDown: 500 });
    const before = await kasir.balance(accountId);
    const failed = await image();
    expect(failed.status).toBe(502);
    expect(failed.charged).toBe('0');
    expect(await kasir.balance(accountId)).toEqual({ ...before, held: 0 });
    await vi.waitFor(() => expect(replicate.cancels).toHaveLength(1));
    replicate.setScript({});
  });

  it('Replicate: an aborted prediction is a failure, charged nothing', async () => {
    replicate.setScript({ polls: 1, aborted: true });
    const answer = await postPaid<{ error: { message: string } }>(
      kasir,
      key,
      '/v1/images/generations',
      IMAGE,
    );
    expect(answer.status).toBe(502);
    expect(answer.charged).toBe('0');
    expect(answer.json.error.message).toMatch(/aborted/);
    replicate.setScript({});
  });
});
