// Authenticated result downloads that redirect (Veo's file download, Sora's content download answered with a
// signed storage URL): followed, each hop checked by the safe fetcher's address rule (the storage host is allowed
// through FETCH_ALLOWED_HOSTS, as a public host would be), the provider's key never sent to the storage host, the
// video re-hosted byte for byte and charged the quote; a redirect to a host the rule refuses charges nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeGoogleMedia, startFakeGoogleMedia } from '../fakes/google-media-upstream.js';
import { type FakeOpenAiMedia, startFakeOpenAiMedia } from '../fakes/openai-media-upstream.js';
import { type StorageHost, startStorageHost } from '../fakes/storage-host.js';
import { type PaidKasir, startPaidKasir } from '../support/paid.js';
import { expectQuoteCharged, hostedBytes, postPaid } from '../support/paid-call.js';

const SORA = { model: 'openai/sora-2', prompt: 'ombak di pantai Kuta', seconds: '4', size: '1280x720' };
const VEO = { model: 'google/veo-3.1-fast-generate-preview', prompt: 'hujan di Bogor', durationSeconds: 4 };

describe('redirected provider downloads', () => {
  let kasir: PaidKasir;
  let openai: FakeOpenAiMedia;
  let google: FakeGoogleMedia;
  let storage: StorageHost;
  let refused: StorageHost;
  let key: string;
  let accountId: string;

  beforeAll(async () => {
    openai = await startFakeOpenAiMedia({ apiKey: 'sk-sora' });
    google = await startFakeGoogleMedia({ apiKey: 'goog-media' });
    storage = await startStorageHost();
    refused = await startStorageHost();
    kasir = await startPaidKasir('sqlite', {
      OPENAI_API_KEY: 'sk-sora',
      OPENAI_BASE_URL: openai.url,
      GEMINI_API_KEY: 'goog-media',
      GEMINI_BASE_URL: google.url,
      FETCH_ALLOWED_HOSTS: new URL(storage.url).host,
    });
    ({ key, accountId } = await kasir.fundedKey(50_000_000));
  });
  afterAll(async () => {
    await kasir.stop();
    await Promise.all([openai.close(), google.close(), storage.close(), refused.close()]);
  });

  const video = (body: Record<string, unknown>) =>
    postPaid<{ output?: { url: string } }>(kasir, key, '/v1/video/generations', body);

  it("follows Sora's content redirect to storage without the key, and charges the quote", async () => {
    openai.setScript({ video: { polls: 1, redirectTo: storage } });
    const answer = await video(SORA);
    expectQuoteCharged(kasir, answer, SORA);
    const hop = storage.requests.at(-1);
    expect(hop?.path).toBe(`/videos/${openai.videos.last()?.id}/video`);
    expect(hop?.headers.authorization).toBeUndefined();
    expect(openai.videos.downloads.at(-1)).toMatchObject({ variant: 'video' });
    const bytes = await hostedBytes(kasir, String(answer.json.output?.url));
    expect(bytes.equals(openai.videos.last()?.mp4 ?? Buffer.alloc(0))).toBe(true);
  });

  it("follows Veo's file download redirect without x-goog-api-key, and charges the quote", async () => {
    google.setScript({ redirectTo: storage });
    const answer = await video(VEO);
    expectQuoteCharged(kasir, answer, VEO);
    expect(google.downloads.at(-1)?.key).toBe('goog-media');
    const hop = storage.requests.at(-1);
    expect(hop?.path).toMatch(/^\/bucket\//);
    expect(hop?.headers['x-goog-api-key']).toBeUndefined();
    expect(hop?.headers.authorization).toBeUndefined();
    const bytes = await hostedBytes(kasir, String(answer.json.output?.url));
    expect(bytes.equals(google.produced.at(-1) ?? Buffer.alloc(0))).toBe(true);
  });

  it('refuses a redirect to a host the address rule does not allow, charging nothing', async () => {
    openai.setScript({ video: { polls: 1, redirectTo: refused } });
    const before = await kasir.balance(accountId);
    const answer = await video(SORA);
    expect(answer.status, JSON.stringify(answer.json)).toBe(502);
    expect(answer.charged).toBe('0');
    expect(refused.requests).toHaveLength(0);
    expect(await kasir.balance(accountId)).toEqual({ ...before, held: 0 });
    openai.setScript({});
  });
});
