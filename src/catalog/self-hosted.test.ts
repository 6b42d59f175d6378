// Self-hosted models: kasir reads the model list of the operator's own server (Ollama, vLLM, llama.cpp server,
// LM Studio — fakes speaking each one's real list format), lists them at the operator's price and sells them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../../test/fakes/chat-upstream.js';
import { startFakeSelfHosted } from '../../test/fakes/self-hosted.js';
import { type PaidKasir, startPaidKasir } from '../../test/support/paid.js';
import { expectQuoteCharged, postPaid } from '../../test/support/paid-call.js';

interface Row {
  id: string;
  available: boolean;
  provider: string;
  aliases?: string[];
  price: { unit: string; rateMicroUsd: number; inputRateMicroUsd?: number; per: number };
}

async function models(kasir: PaidKasir) {
  const res = await kasir.app.request('/v1/models');
  return (await res.json()) as { models: Row[]; data: Array<{ id: string; owned_by: string }> };
}

async function quote(kasir: PaidKasir, model: string) {
  const res = await kasir.app.request(`/v1/price?model=${encodeURIComponent(model)}`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('Ollama at OLLAMA_BASE_URL', () => {
  let ollama: FakeUpstream;
  let kasir: PaidKasir;
  beforeAll(async () => {
    ollama = await startFakeSelfHosted('ollama', { models: ['llama3.2:latest', 'qwen2.5:0.5b'] });
    kasir = await startPaidKasir('sqlite', {
      OLLAMA_BASE_URL: ollama.url,
      SELF_HOSTED_PRICE_PER_MTOK: '0.20:0.60',
      SELF_HOSTED_PRICES: JSON.stringify({ 'qwen2.5:0.5b': '0.05:0.10' }),
    });
    await kasir.deps.modelWatch?.ready;
  });
  afterAll(async () => {
    await kasir?.stop();
    await ollama?.close();
  });

  it("lists the server's models in the catalog at the operator's price, default and per model", async () => {
    const list = await models(kasir);
    const llama = list.models.find((m) => m.id === 'ollama/llama3.2:latest');
    expect(llama).toMatchObject({ available: true, provider: 'ollama' });
    // $0.60 per million output tokens = 600,000 micro-USD per 1M
    expect(llama?.price).toMatchObject({ unit: 'token', rateMicroUsd: 600_000, inputRateMicroUsd: 200_000 });
    const qwen = list.models.find((m) => m.id === 'ollama/qwen2.5:0.5b');
    expect(qwen?.price).toMatchObject({ rateMicroUsd: 100_000, inputRateMicroUsd: 50_000 });
    expect(list.data.map((d) => d.id)).toContain('ollama/llama3.2:latest');
  });

  it('resolves the names callers use: llama3.2, ollama/llama3.2, llama3.2@ollama, llama3.2:latest', async () => {
    for (const name of ['llama3.2', 'ollama/llama3.2', 'llama3.2@ollama', 'llama3.2:latest']) {
      const { status, body } = await quote(kasir, name);
      expect(status, name).toBe(200);
      expect(body.model).toBe('ollama/llama3.2:latest');
    }
  });

  it('sells a chat call on a prepaid key: the server gets its own model id, the charge is the quote', async () => {
    const { key, accountId } = await kasir.fundedKey(1_000_000);
    const body = { model: 'llama3.2', messages: [{ role: 'user', content: 'Halo' }], max_tokens: 100 };
    const before = await kasir.balance(accountId);
    const answer = await postPaid<Record<string, unknown>>(kasir, key, '/v1/chat/completions', body);
    expectQuoteCharged(kasir, answer, body);
    const sent = ollama.requests.at(-1);
    expect(sent?.body.model).toBe('llama3.2:latest');
    // Keyless: no Authorization header reaches the operator's server
    expect(sent?.headers.authorization).toBeUndefined();
    const after = await kasir.balance(accountId);
    expect(before.balance - after.balance).toBe(Number(answer.charged));
  });

  it('charges nothing when the server fails the call', async () => {
    const { key, accountId } = await kasir.fundedKey(1_000_000);
    ollama.setScript({ failure: { kind: 'status', status: 500 } });
    const before = await kasir.balance(accountId);
    const answer = await postPaid(kasir, key, '/v1/chat/completions', {
      model: 'ollama/qwen2.5:0.5b',
      messages: [{ role: 'user', content: 'Halo' }],
    });
    ollama.setScript({});
    expect(answer.status).toBeGreaterThanOrEqual(500);
    expect((await kasir.balance(accountId)).balance).toBe(before.balance);
  });

  it('lists only what the server lists: another name stays unknown (404)', async () => {
    const start = (await models(kasir)).models.filter((m) => m.provider === 'ollama').length;
    expect(start).toBe(2);
    expect((await quote(kasir, 'ollama/mistral')).status).toBe(404);
  });
});

describe('vLLM, llama.cpp server and LM Studio at SELF_HOSTED_BASE_URL', () => {
  it('vLLM: its key is sent, max_model_len bounds the context, the per-model price applies', async () => {
    const vllm = await startFakeSelfHosted('vllm', {
      models: ['Qwen/Qwen2.5-1.5B-Instruct'],
      contextLength: 2048,
      apiKey: 'vllm-secret',
    });
    const kasir = await startPaidKasir('sqlite', {
      SELF_HOSTED_BASE_URL: vllm.url,
      SELF_HOSTED_API_KEY: 'vllm-secret',
      SELF_HOSTED_PRICES: JSON.stringify({ 'self-hosted/Qwen/Qwen2.5-1.5B-Instruct': '1:2' }),
    });
    try {
      await kasir.deps.modelWatch?.ready;
      expect(vllm.requests[0]?.headers.authorization).toBe('Bearer vllm-secret');
      const row = (await models(kasir)).models.find((m) => m.id === 'self-hosted/Qwen/Qwen2.5-1.5B-Instruct');
      expect(row?.price).toMatchObject({ rateMicroUsd: 2_000_000, inputRateMicroUsd: 1_000_000 });
      const { key } = await kasir.fundedKey(1_000_000);
      const body = { model: 'Qwen/Qwen2.5-1.5B-Instruct', messages: [{ role: 'user', content: 'Hi' }] };
      const answer = await postPaid(kasir, key, '/v1/chat/completions', body);
      expectQuoteCharged(kasir, answer, body);
      expect(vllm.requests.at(-1)?.body.model).toBe('Qwen/Qwen2.5-1.5B-Instruct');
      // A request longer than the served context is refused before any charge.
      const long = await postPaid(kasir, key, '/v1/chat/completions', {
        ...body,
        messages: [{ role: 'user', content: 'word '.repeat(3000) }],
      });
      expect(long.status).toBe(400);
      expect(long.charged ?? '0').toBe('0');
    } finally {
      await kasir.stop();
      await vllm.close();
    }
  });

  it('llama.cpp server: n_ctx_train is read; LM Studio: the bare list is enough', async () => {
    for (const [flavour, id] of [
      ['llamacpp', 'gemma-3-1b-it-Q4_K_M.gguf'],
      ['lmstudio', 'qwen2.5-7b-instruct'],
    ] as const) {
      const server = await startFakeSelfHosted(flavour, { models: [id], contextLength: 4096 });
      const kasir = await startPaidKasir('sqlite', { SELF_HOSTED_BASE_URL: server.url });
      try {
        await kasir.deps.modelWatch?.ready;
        const { status, body } = await quote(kasir, id);
        expect(status, flavour).toBe(200);
        expect(body.model).toBe(`self-hosted/${id}`);
        const entry = kasir.deps.catalog.find(id);
        expect(entry?.kind === 'model' && entry.chat?.contextLength).toBe(
          flavour === 'llamacpp' ? 4096 : null,
        );
        const { key } = await kasir.fundedKey(1_000_000);
        const call = { model: `${id}@self-hosted`, messages: [{ role: 'user', content: 'Hi' }] };
        expectQuoteCharged(kasir, await postPaid(kasir, key, '/v1/chat/completions', call), call);
      } finally {
        await kasir.stop();
        await server.close();
      }
    }
  });

  it('a server that cannot be reached leaves start-up alone and lists nothing', async () => {
    const kasir = await startPaidKasir('sqlite', { SELF_HOSTED_BASE_URL: 'http://127.0.0.1:9/v1' });
    try {
      await kasir.deps.modelWatch?.ready;
      expect((await models(kasir)).models.some((m) => m.provider === 'self-hosted')).toBe(false);
      const report = kasir.deps.modelWatch?.report() ?? [];
      expect(report.find((r) => r.provider === 'self-hosted')?.error).toMatch(/cannot reach/);
    } finally {
      await kasir.stop();
    }
  });
});
