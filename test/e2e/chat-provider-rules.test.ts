// Provider rules kept through kasir's HTTP API: xAI reasoning billed on a metered channel stream, xAI's refused
// fields and over-long non-streamed Claude calls refused before payment, Claude's temperature + top_p and a
// streamed multi-turn thinking tool loop answered 200 — against fakes that enforce the real APIs' rules.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeEscrow, startFakeEscrow } from '../fakes/channel-escrow.js';
import type { FakeUpstream } from '../fakes/chat-upstream.js';
import { startFakeOpenAI } from '../fakes/openai-upstream.js';
import { postJson } from '../support/app.js';
import { CHAIN_ID, channelEnv, chatWithVoucher, openChannelOn } from '../support/channel-payer.js';
import { bearer, chatBody, type PaidKasir, startPaidKasir } from '../support/paid.js';

const XAI_KEY = 'xai-fake-key';

interface Chunk {
  choices: Array<{ delta: Record<string, unknown>; finish_reason?: string | null }>;
  usage?: { completion_tokens: number; completion_tokens_details?: { reasoning_tokens: number } };
  costMicroUsd?: number;
}

const chunksOf = (text: string): Chunk[] =>
  text
    .split('\n\n')
    .filter((frame) => !frame.startsWith('event:') || frame.startsWith('event: message'))
    .map((frame) => frame.split('\n').find((line) => line.startsWith('data: {')))
    .filter((line): line is string => line !== undefined)
    .map((line) => JSON.parse(line.slice(6)) as Chunk);

describe('chat provider rules through the HTTP API', () => {
  let xai: FakeUpstream;
  let escrow: FakeEscrow;
  let kasir: PaidKasir;
  beforeAll(async () => {
    xai = await startFakeOpenAI({ apiKey: XAI_KEY, dialect: 'xai' });
    escrow = startFakeEscrow(CHAIN_ID);
    kasir = await startPaidKasir(
      'sqlite',
      { ...channelEnv, XAI_API_KEY: XAI_KEY, XAI_BASE_URL: xai.url },
      undefined,
      { channelBackend: escrow },
    );
  });
  afterAll(async () => {
    await kasir.stop();
    await xai.close();
  });
  beforeEach(() => {
    xai.setScript({});
    xai.requests.length = 0;
    kasir.anthropic.setScript({});
    kasir.anthropic.requests.length = 0;
  });

  it('bills xAI’s hidden reasoning on a metered channel stream (output = answer + reasoning)', async () => {
    const body = chatBody('xai/grok-4', 'Say hi', { stream: true, max_tokens: 2000 });
    const price = (tokens: number) => kasir.quote({ ...body, max_tokens: tokens });
    xai.setScript({ text: 'hi', usage: { prompt: 12, completion: 127, reasoning: 125 } });
    const channel = await openChannelOn(kasir, escrow, 1_000_000n);
    const res = await chatWithVoucher(kasir, await channel.voucher(kasir.quote(body)), body);
    expect(res.status).toBe(200);
    const closing = chunksOf(await res.text()).find((c) => c.costMicroUsd !== undefined) as Chunk;
    expect(closing.usage).toMatchObject({
      completion_tokens: 127,
      completion_tokens_details: { reasoning_tokens: 125 },
    });
    expect(closing.costMicroUsd).toBe(price(127));
    expect(price(127)).toBeGreaterThan(price(2));
  });

  it.each([
    ['stop', { stop: ['END'] }],
    ['presence_penalty', { presence_penalty: 0.5 }],
    ['frequency_penalty', { frequency_penalty: 0.5 }],
    ['reasoning_effort', { reasoning_effort: 'high' }],
  ])('refuses %s on an xAI reasoning model before payment, naming the field', async (field, extra) => {
    const { accountId, key } = await kasir.fundedKey(1_000_000);
    const res = await postJson(
      kasir,
      '/v1/chat/completions',
      chatBody('xai/grok-4', 'hi', extra),
      bearer(key),
    );
    expect(res.status).toBe(400);
    const error = (await res.json()) as { error: { message: string; details: Array<{ field: string }> } };
    expect(error.error.message).toContain(field);
    expect(error.error.details).toContainEqual(expect.objectContaining({ field }));
    expect(await kasir.balance(accountId)).toEqual({ balance: 1_000_000, held: 0 });
    expect(xai.requests.filter((r) => r.body.messages)).toHaveLength(0);
  });

  it('answers Claude with temperature and top_p together, charging the quote', async () => {
    const { accountId, key } = await kasir.fundedKey(1_000_000);
    const body = chatBody('anthropic/claude-sonnet-4-5', 'hi', { temperature: 0.7, top_p: 0.9 });
    const res = await postJson(kasir, '/v1/chat/completions', body, bearer(key));
    expect(res.status).toBe(200);
    expect(kasir.anthropic.requests[0]?.body).toMatchObject({ temperature: 0.7 });
    expect(kasir.anthropic.requests[0]?.body).not.toHaveProperty('top_p');
    expect(await kasir.balance(accountId)).toEqual({ balance: 1_000_000 - kasir.quote(body), held: 0 });
  });

  it('completes a streamed multi-turn Claude thinking tool loop, answered 200 both turns', async () => {
    const { key } = await kasir.fundedKey(5_000_000);
    const tools = [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
        },
      },
    ];
    const question = { role: 'user', content: 'Weather in Jakarta?' };
    const turn = {
      model: 'anthropic/claude-sonnet-4-5',
      max_tokens: 8000,
      reasoning_effort: 'high',
      tools,
      stream: true,
    };
    kasir.anthropic.setScript(
      {
        text: '',
        reasoning: 'Call get_weather for Jakarta.',
        toolCalls: [{ name: 'get_weather', arguments: { city: 'Jakarta' } }],
      },
      { text: 'It is 31°C.' },
    );
    const first = await postJson(
      kasir,
      '/v1/chat/completions',
      { ...turn, messages: [question] },
      bearer(key),
    );
    expect(first.status).toBe(200);
    const deltas = chunksOf(await first.text()).flatMap((c) => c.choices.map((choice) => choice.delta));
    const calls = deltas.flatMap(
      (d) => (d.tool_calls as Array<{ id?: string; function: { arguments: string } }>) ?? [],
    );
    const assistant = {
      role: 'assistant',
      content: null,
      reasoning_details: deltas.flatMap((d) => (d.reasoning_details as unknown[]) ?? []),
      tool_calls: [
        {
          id: calls[0]?.id,
          type: 'function',
          function: { name: 'get_weather', arguments: calls.map((c) => c.function.arguments).join('') },
        },
      ],
    };
    const second = await postJson(
      kasir,
      '/v1/chat/completions',
      {
        ...turn,
        messages: [question, assistant, { role: 'tool', tool_call_id: calls[0]?.id, content: '31°C' }],
      },
      bearer(key),
    );
    expect(second.status).toBe(200);
    const text = chunksOf(await second.text())
      .flatMap((c) => c.choices.map((choice) => String(choice.delta.content ?? '')))
      .join('');
    expect(text).toBe('It is 31°C.');
    expect(kasir.anthropic.requests[1]?.body.thinking).toEqual({ type: 'enabled', budget_tokens: 4000 });
  });

  it('refuses before payment a non-streamed Claude call too long to finish in time, and streams it', async () => {
    const { accountId, key } = await kasir.fundedKey(5_000_000);
    const body = chatBody('anthropic/claude-sonnet-4-5', 'Write a book', { max_tokens: 32_000 });
    const refused = await postJson(kasir, '/v1/chat/completions', body, bearer(key));
    expect(refused.status).toBe(400);
    const error = (await refused.json()) as { error: { message: string; details: Array<{ field: string }> } };
    expect(error.error.message).toContain('"stream": true');
    expect(error.error.details).toContainEqual(expect.objectContaining({ field: 'max_tokens' }));
    expect(await kasir.balance(accountId)).toEqual({ balance: 5_000_000, held: 0 });
    expect(kasir.anthropic.requests).toHaveLength(0);
    const streamed = await postJson(kasir, '/v1/chat/completions', { ...body, stream: true }, bearer(key));
    expect(streamed.status).toBe(200);
    await streamed.text();
  });
});
