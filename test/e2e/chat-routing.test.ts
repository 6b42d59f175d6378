// Provider routing for chat: fallback to a second provider of the same model before the first byte,
// availability from configuration, and the output ceiling sent upstream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../fakes/chat-upstream.js';
import { startFakeOpenAI } from '../fakes/openai-upstream.js';
import { bearer, chatBody, type PaidKasir, startPaidKasir } from '../support/paid.js';

describe('chat provider routing', () => {
  let primary: FakeUpstream;
  let fallback: FakeUpstream;
  let kasir: PaidKasir;
  beforeAll(async () => {
    primary = await startFakeOpenAI({
      apiKey: 'sk-deepseek',
      script: { failure: { kind: 'status', status: 503 } },
    });
    fallback = await startFakeOpenAI({ apiKey: 'sk-openrouter' });
    kasir = await startPaidKasir('sqlite', {
      DEEPSEEK_API_KEY: 'sk-deepseek',
      DEEPSEEK_BASE_URL: primary.url,
      OPENROUTER_API_KEY: 'sk-openrouter',
      OPENROUTER_BASE_URL: fallback.url,
      UPSTREAM_RETRIES: '1',
    });
  });
  afterAll(async () => {
    await kasir.stop();
    await primary.close();
    await fallback.close();
  });

  it('falls back to the second provider when the first fails before any byte, charging the quote once', async () => {
    const { accountId, key } = await kasir.fundedKey(1_000_000);
    const body = chatBody('deepseek/deepseek-chat', 'hello', { max_tokens: 100 });
    const res = await kasir.app.request('/v1/chat/completions', {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', ...bearer(key) },
    });
    expect(res.status).toBe(200);
    const json = (await res.json()) as { model: string; costMicroUsd: number };
    expect(json.model).toBe('deepseek/deepseek-chat');
    expect(json.costMicroUsd).toBe(kasir.quote(body));
    expect(primary.requests).toHaveLength(2); // first try + one retry
    expect(primary.requests[0]?.body.model).toBe('deepseek-chat');
    expect(fallback.requests).toHaveLength(1);
    expect(fallback.requests[0]?.body.model).toBe('deepseek/deepseek-chat');
    expect(fallback.requests[0]?.headers.authorization).toBe('Bearer sk-openrouter');
    expect(await kasir.balance(accountId)).toEqual({ balance: 1_000_000 - json.costMicroUsd, held: 0 });
  });

  it('sends the quoted output ceiling upstream, in the field each model reads', async () => {
    const { key } = await kasir.fundedKey(10_000_000);
    kasir.openai.requests.length = 0;
    for (const model of ['openai/gpt-4.1-mini', 'openai/gpt-5-mini']) {
      const res = await kasir.app.request('/v1/chat/completions', {
        method: 'POST',
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
        headers: { 'content-type': 'application/json', ...bearer(key) },
      });
      expect(res.status).toBe(200);
    }
    expect(kasir.openai.requests[0]?.body).toMatchObject({ model: 'gpt-4.1-mini', max_tokens: 1024 });
    expect(kasir.openai.requests[1]?.body).toMatchObject({
      model: 'gpt-5-mini',
      max_completion_tokens: 1024,
    });
    expect(kasir.openai.requests[1]?.body).not.toHaveProperty('max_tokens');
  });

  it('lists a chat model as available when one of its providers is configured', async () => {
    const res = await kasir.app.request('/v1/models');
    const { models } = (await res.json()) as { models: Array<{ id: string; available: boolean }> };
    const available = (id: string) => models.find((m) => m.id === id)?.available;
    expect(available('openai/gpt-4.1-mini')).toBe(true);
    expect(available('deepseek/deepseek-chat')).toBe(true);
    expect(available('xai/grok-4')).toBe(false);
    // A media model whose provider has no adapter in kasir yet.
    expect(available('runwayml/gen4_turbo')).toBe(false);
  });
});

describe('consult on a server with a chat provider', () => {
  it('says which candidates this server can run', async () => {
    const kasir = await startPaidKasir('sqlite');
    try {
      const chat = (await (
        await kasir.app.request('/v1/consult?intent=chat%20with%20gpt&limit=5')
      ).json()) as {
        candidates: Array<{ kind: string; category: string; available: boolean }>;
      };
      const chatModel = chat.candidates.find((c) => c.category === 'chat');
      expect(chatModel).toBeDefined();
      expect(typeof chatModel?.available).toBe('boolean');
      const prayer = (await (
        await kasir.app.request('/v1/consult?intent=waktu%20sholat%20bandung')
      ).json()) as {
        candidates: Array<{ kind: string; available: boolean }>;
      };
      expect(prayer.candidates.find((c) => c.kind === 'lookup')?.available).toBe(true);
      const video = (await (
        await kasir.app.request('/v1/consult?intent=video%20from%20an%20image')
      ).json()) as {
        candidates: Array<{ category: string; available: boolean }>;
      };
      // fal (configured by the paid test kasir) runs the image-to-video models.
      expect(video.candidates.find((c) => c.category === 'image-to-video')?.available).toBe(true);
    } finally {
      await kasir.stop();
    }
  });
});
