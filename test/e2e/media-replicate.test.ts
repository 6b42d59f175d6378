// Replicate's predictions end to end on each database (a local fake in Replicate's wire format): a prediction
// finished within `Prefer: wait`, one polled to its end, failures charged nothing, outputs re-hosted byte for byte
// on the disk and in an S3 bucket (a real S3-compatible server in CI).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeReplicate, startFakeReplicate } from '../fakes/replicate-upstream.js';
import { type PaidKasir, startPaidKasir } from '../support/paid.js';
import { expectQuoteCharged, hostedBytes, postPaid } from '../support/paid-call.js';
import { DB_STORE_TARGETS, openMediaStore } from '../support/s3.js';

const MODEL = 'black-forest-labs/flux-schnell';

describe.each(DB_STORE_TARGETS)('Replicate media models on %s with %s media', (db, _label, store) => {
  let kasir: PaidKasir;
  let replicate: FakeReplicate;
  let media: Awaited<ReturnType<typeof openMediaStore>>;
  let key: string;
  let accountId: string;

  beforeAll(async () => {
    replicate = await startFakeReplicate({ token: 'r8_fake' });
    media = await openMediaStore(store);
    kasir = await startPaidKasir(db, {
      REPLICATE_API_TOKEN: 'r8_fake',
      REPLICATE_BASE_URL: replicate.url,
      ...media.env,
    });
    ({ key, accountId } = await kasir.fundedKey(10_000_000));
  });
  afterAll(async () => {
    await kasir.stop();
    await replicate.close();
    await media?.close();
  });

  const post = (body: Record<string, unknown>) =>
    postPaid<{
      costMicroUsd?: number;
      output?: { url: string; files?: Array<{ url: string }> };
    }>(kasir, key, '/v1/images/generations', body);
  const bytesAt = (url: string) => hostedBytes(kasir, url);

  it('answers from a prediction finished within Prefer: wait, re-hosting its output', async () => {
    replicate.setScript({});
    const body = { model: MODEL, prompt: 'a teapot', num_outputs: 1 };
    const answer = await post(body);
    expectQuoteCharged(kasir, answer, body);
    const created = replicate.creates.at(-1);
    expect(created).toMatchObject({ model: MODEL, prefer: 'wait', body: { input: { prompt: 'a teapot' } } });
    expect(created?.body.input).not.toHaveProperty('model');
    const [upstreamUrl, upstreamBytes] = [...replicate.files.entries()].at(-1) ?? [];
    expect(upstreamUrl).toBeDefined();
    expect((await bytesAt(String(answer.json.output?.url))).equals(upstreamBytes ?? Buffer.alloc(0))).toBe(
      true,
    );
  });

  it('polls a prediction still running after the wait, and re-hosts every file of a list output', async () => {
    replicate.setScript({ polls: 3, files: 2 });
    const answer = await post({ model: MODEL, prompt: 'two teapots', num_outputs: 2 });
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    expect(answer.json.output?.files).toHaveLength(2);
    replicate.setScript({});
  });

  it.each([
    [
      'an NSFW refusal',
      { error: 'NSFW content detected. Try running it again, or try a different prompt.' },
      400,
    ],
    ['a failed prediction', { error: 'CUDA out of memory', polls: 1 }, 502],
    ['an invalid input', { createStatus: 422 }, 400],
    ['a server error', { createStatus: 500 }, 502],
  ])('charges nothing for %s', async (_name, script, status) => {
    replicate.setScript(script);
    const before = await kasir.balance(accountId);
    const answer = await post({ model: MODEL, prompt: 'x' });
    expect(answer.status, JSON.stringify(answer.json)).toBe(status);
    expect(answer.charged).toBe('0');
    expect(await kasir.balance(accountId)).toEqual({ ...before, held: 0 });
    replicate.setScript({});
  });
});
