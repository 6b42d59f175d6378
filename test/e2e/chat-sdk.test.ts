// The official openai SDK, unmodified, as the caller of kasir's chat completions on a prepaid key.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server.js';
import { DB_TARGETS } from '../support/app.js';
import { type PaidKasir, startPaidKasir } from '../support/paid.js';

describe.each(DB_TARGETS)('openai SDK against kasir on %s', (db) => {
  let kasir: PaidKasir;
  let server: RunningServer;
  beforeAll(async () => {
    kasir = await startPaidKasir(db);
    server = await startServer(kasir.app, '127.0.0.1', 0);
  });
  afterAll(async () => {
    await server.stop(1000);
    await kasir.stop();
  });

  const client = (key: string) => new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });

  it('runs a plain completion and charges exactly the quote', async () => {
    const { accountId, key } = await kasir.fundedKey(1_000_000);
    kasir.openai.setScript({ text: 'Hello from upstream', usage: { prompt: 12, completion: 4 } });
    const body = {
      model: 'openai/gpt-4.1-mini',
      messages: [{ role: 'user' as const, content: 'Say hello' }],
      max_tokens: 100,
    };
    const quote = kasir.quote(body);
    const { data, response } = await client(key).chat.completions.create(body).withResponse();
    expect(data.choices[0]?.message.content).toBe('Hello from upstream');
    expect(data.model).toBe('openai/gpt-4.1-mini');
    expect(data.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 });
    const extra = data as unknown as { costMicroUsd: number; receipt: Record<string, unknown> };
    expect(extra.costMicroUsd).toBe(quote);
    expect(extra.receipt).toMatchObject({
      rail: 'prepaid',
      charged_micro_usd: quote,
      balance_micro_usd: 1_000_000 - quote,
    });
    expect(response.headers.get('x-service-charged-micro-usd')).toBe(String(quote));
    expect(response.headers.get('x-service-balance-micro-usd')).toBe(String(1_000_000 - quote));
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await kasir.balance(accountId)).toEqual({ balance: 1_000_000 - quote, held: 0 });
    // The upstream got its own model id and our key, never the caller's.
    const sent = kasir.openai.requests.at(-1);
    expect(sent?.body.model).toBe('gpt-4.1-mini');
    expect(sent?.headers.authorization).toBe('Bearer sk-fake-openai');
  });

  it('streams chunks as they arrive and ends with usage, cost and [DONE]', async () => {
    const { accountId, key } = await kasir.fundedKey(1_000_000);
    kasir.openai.setScript({
      text: 'one two three four five six seven eight nine ten',
      events: 10,
      delayMs: 5,
    });
    const body = {
      model: 'openai/gpt-4.1-mini',
      messages: [{ role: 'user' as const, content: 'Count' }],
      max_tokens: 50,
    };
    const quote = kasir.quote(body);
    const stream = await client(key).chat.completions.create({ ...body, stream: true });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
    expect(text).toBe('one two three four five six seven eight nine ten');
    expect(chunks.length).toBeGreaterThanOrEqual(10);
    const last = chunks.at(-1) as unknown as {
      usage: { total_tokens: number };
      costMicroUsd: number;
      choices: unknown[];
    };
    expect(last.choices).toEqual([]);
    expect(last.usage.total_tokens).toBeGreaterThan(0);
    expect(last.costMicroUsd).toBe(quote);
    expect(await kasir.balance(accountId)).toEqual({ balance: 1_000_000 - quote, held: 0 });
  });

  it('round-trips a tool call', async () => {
    const { accountId, key } = await kasir.fundedKey(1_000_000);
    const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Weather for a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ];
    kasir.openai.setScript(
      { toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Bandung' } }] },
      { text: 'It is 24°C in Bandung.' },
    );
    const first = await client(key).chat.completions.create({
      model: 'openai/gpt-4.1-mini',
      messages: [{ role: 'user', content: 'Weather in Bandung?' }],
      tools,
      tool_choice: 'auto',
      max_tokens: 100,
    });
    const call = first.choices[0]?.message.tool_calls?.[0];
    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    expect(call?.type === 'function' && call.function.name).toBe('get_weather');
    expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'Bandung' });
    const second = await client(key).chat.completions.create({
      model: 'openai/gpt-4.1-mini',
      messages: [
        { role: 'user', content: 'Weather in Bandung?' },
        first.choices[0]?.message as OpenAI.Chat.Completions.ChatCompletionMessageParam,
        { role: 'tool', tool_call_id: call?.id ?? '', content: '{"celsius":24}' },
      ],
      tools,
      max_tokens: 100,
    });
    expect(second.choices[0]?.message.content).toBe('It is 24°C in Bandung.');
    const upstreamMessages = kasir.openai.requests.at(-1)?.body.messages as Array<Record<string, unknown>>;
    expect(upstreamMessages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_1' });
    const charged =
      (first as unknown as { costMicroUsd: number }).costMicroUsd +
      (second as unknown as { costMicroUsd: number }).costMicroUsd;
    expect(await kasir.balance(accountId)).toEqual({ balance: 1_000_000 - charged, held: 0 });
  });

  it('passes a vision message to a vision model, and refuses images on a text-only model without charging', async () => {
    const { accountId, key } = await kasir.fundedKey(1_000_000);
    kasir.openai.setScript({});
    const image = 'https://example.com/cat.png';
    const answer = await client(key).chat.completions.create({
      model: 'openai/gpt-4.1-mini',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: image } },
          ],
        },
      ],
      max_tokens: 100,
    });
    expect(answer.choices[0]?.message.content).toContain(image);
    const after = await kasir.balance(accountId);
    expect(after.balance).toBe(1_000_000 - (answer as unknown as { costMicroUsd: number }).costMicroUsd);

    const refused = await client(key)
      .chat.completions.create({
        model: 'deepseek/deepseek-chat',
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: image } }] }],
      })
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).message).toMatch(/image/i);
    expect(await kasir.balance(accountId)).toEqual(after);
  });

  it('reports kasir errors through the SDK error classes (402 without a key balance, 404 unknown model)', async () => {
    const { key } = await kasir.fundedKey(0);
    const poor = await client(key)
      .chat.completions.create({ model: 'openai/gpt-4.1-mini', messages: [{ role: 'user', content: 'hi' }] })
      .catch((err: unknown) => err);
    expect(poor).toBeInstanceOf(OpenAI.APIError);
    expect((poor as InstanceType<typeof OpenAI.APIError>).status).toBe(402);
    const unknown = await client(key)
      .chat.completions.create({ model: 'openai/gpt-99', messages: [{ role: 'user', content: 'hi' }] })
      .catch((err: unknown) => err);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
  });
});
