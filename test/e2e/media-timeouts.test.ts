// Timeouts per kind of media work: a request that does the work (an image made) may take longer to its first byte
// than UPSTREAM_TIMEOUT_MS, up to MEDIA_FIRST_BYTE_TIMEOUT_MS, and is charged; past that it fails uncharged; a read
// of a queued job that hangs past MEDIA_READ_TIMEOUT_MS is retried, and the job still succeeds at the quote.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAiMedia, startFakeOpenAiMedia } from '../fakes/openai-media-upstream.js';
import { type PaidKasir, startPaidKasir } from '../support/paid.js';
import { expectQuoteCharged, postPaid } from '../support/paid-call.js';

const IMAGE = { model: 'openai/gpt-image-1', prompt: 'a cat', quality: 'low', size: '1024x1024' };
const VIDEO = { model: 'kwaivgi/kling-v2.5-turbo-pro', prompt: 'waves on a reef', duration: '5' };

describe('media timeouts per kind of work', () => {
  let kasir: PaidKasir;
  let openai: FakeOpenAiMedia;
  let key: string;

  beforeAll(async () => {
    openai = await startFakeOpenAiMedia({ apiKey: 'sk-slow' });
    kasir = await startPaidKasir('sqlite', {
      OPENAI_API_KEY: 'sk-slow',
      OPENAI_BASE_URL: openai.url,
      UPSTREAM_TIMEOUT_MS: '300',
      MEDIA_FIRST_BYTE_TIMEOUT_MS: '1500',
      MEDIA_READ_TIMEOUT_MS: '200',
      MEDIA_READ_RETRY_BASE_MS: '10',
    });
    ({ key } = await kasir.fundedKey(20_000_000));
  });
  afterAll(async () => {
    await kasir.stop();
    await openai.close();
  });

  it('lets an image take longer than UPSTREAM_TIMEOUT_MS to its first byte, and charges it', async () => {
    openai.setScript({ delayMs: 700 });
    const answer = await postPaid(kasir, key, '/v1/images/generations', IMAGE);
    expectQuoteCharged(kasir, answer, IMAGE);
  });

  it('fails uncharged past MEDIA_FIRST_BYTE_TIMEOUT_MS', async () => {
    openai.setScript({ delayMs: 2500 });
    const answer = await postPaid(kasir, key, '/v1/images/generations', IMAGE);
    expect(answer.status).toBe(504);
    expect(answer.charged).toBe('0');
    openai.setScript({});
  });

  it('retries a status read that hangs past MEDIA_READ_TIMEOUT_MS; the job succeeds at the quote', async () => {
    kasir.fal.setScript({ polls: 2, statusStallMs: 600 });
    const answer = await postPaid(kasir, key, '/v1/video/generations', VIDEO);
    expectQuoteCharged(kasir, answer, VIDEO);
    kasir.fal.setScript({});
  });
});
