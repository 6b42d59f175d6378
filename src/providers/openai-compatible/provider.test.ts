// The OpenAI-compatible adapter against a fake upstream: complete(), stream() and failures,
// relayOpenAiStream, and xAI's usage in the common semantics.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectStreamFailureAfterFirstByte, readChatStream } from '../../../test/fakes/chat-upstream.js';
import { type FakeUpstream, startFakeOpenAI } from '../../../test/fakes/openai-upstream.js';
import { framesOf } from '../../../test/support/frames.js';
import { UpstreamError } from '../../http/upstream-error.js';
import { UpstreamPools } from '../pools.js';
import type { CallContext, ChatProvider, ChatStreamEvent } from '../types.js';
import { UpstreamClient } from '../upstream-client.js';
import { createOpenAiCompatibleProvider } from './provider.js';
import { relayOpenAiStream } from './stream.js';

const KEY = 'sk-test-0123456789';
const ctx = (): CallContext => ({ signal: new AbortController().signal, requestId: 'req-1' });
const ask = (extra: Record<string, unknown> = {}) => ({
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content: 'Hi' }],
  ...extra,
});

let fake: FakeUpstream;
let pools: UpstreamPools;
let openai: ChatProvider;

beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: KEY });
  pools = new UpstreamPools();
  openai = createOpenAiCompatibleProvider({
    name: 'openai',
    baseUrl: fake.url,
    apiKey: KEY,
    timeoutMs: 2_000,
    pools,
  });
});
afterAll(async () => {
  await pools.close();
  await fake.close();
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.setScript({});
});

describe('openai-compatible complete', () => {
  it('posts the body as given, with the bearer key, and returns the completion with usage', async () => {
    fake.setScript({ text: 'Halo!', usage: { prompt: 9, completion: 3, cacheRead: 4 } });
    const body = ask({
      max_completion_tokens: 50,
      seed: 7,
      vendor_flag: { a: 1 },
      stream_options: { include_usage: true },
    });
    const completion = await openai.complete(body, ctx());

    const request = fake.requests[0];
    expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.body).toEqual({ ...body, stream: false, stream_options: undefined });
    expect(request?.body).not.toHaveProperty('stream_options');
    expect(request?.body).not.toHaveProperty('max_tokens');
    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: 'gpt-4o-mini',
      choices: [{ message: { role: 'assistant', content: 'Halo!' }, finish_reason: 'stop' }],
      usage: {
        prompt_tokens: 9,
        completion_tokens: 3,
        total_tokens: 12,
        prompt_tokens_details: { cached_tokens: 4 },
      },
    });
  });

  it('returns tool calls as the upstream sent them', async () => {
    fake.setScript({ text: '', toolCalls: [{ name: 'get_weather', arguments: { city: 'Jakarta' } }] });
    const completion = await openai.complete(
      ask({ tools: [{ type: 'function', function: { name: 'get_weather' } }] }),
      ctx(),
    );
    expect(completion.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: {
        tool_calls: [
          { id: 'call_fake0001', function: { name: 'get_weather', arguments: '{"city":"Jakarta"}' } },
        ],
      },
    });
  });

  it('passes vision content parts through untouched', async () => {
    const content = [
      { type: 'text', text: 'What is this?' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
      { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg', detail: 'low' } },
    ];
    const completion = await openai.complete(ask({ messages: [{ role: 'user', content }] }), ctx());
    expect(fake.requests[0]?.body.messages).toEqual([{ role: 'user', content }]);
    expect(completion.choices[0]).toMatchObject({
      message: {
        content: expect.stringContaining('2 image(s): image/png inline, https://example.com/cat.jpg'),
      },
    });
  });

  it('sends no authorization header when there is no key (local servers)', async () => {
    const open = await startFakeOpenAI();
    const local = createOpenAiCompatibleProvider({
      name: 'ollama',
      baseUrl: open.url,
      apiKey: undefined,
      timeoutMs: 2_000,
      pools,
    });
    try {
      await local.complete(ask({ model: 'llama3.2' }), ctx());
      expect(open.requests[0]?.headers.authorization).toBeUndefined();
    } finally {
      await open.close();
    }
  });

  it('treats an answer without usage as an upstream failure, not as zero usage', async () => {
    fake.setScript({ failure: { kind: 'no_usage' } });
    await expect(openai.complete(ask(), ctx())).rejects.toMatchObject({
      kind: 'upstream',
      message: expect.stringContaining('without usage'),
      options: { beforeFirstByte: true },
    });
  });
});

describe('openai-compatible stream', () => {
  it('forwards frames as they arrive, asks for usage, and ends with the usage-only chunk lifted out', async () => {
    fake.setScript({ text: 'one two three four five six seven eight nine ten', events: 10, delayMs: 20 });
    const stream = openai.stream(ask({ stream: true }), ctx())[Symbol.asyncIterator]();
    const first = await stream.next();
    expect(first.value).toMatchObject({ type: 'frame' });
    expect(fake.requests[0]?.finished).toBe(false);
    expect(fake.requests[0]?.eventsSent).toBeLessThan(5);

    const rest = await readChatStream({ [Symbol.asyncIterator]: () => stream });
    expect(fake.requests[0]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(rest.text).toBe('one two three four five six seven eight nine ten');
    expect(rest.chunks.every((c) => c.choices.length > 0)).toBe(true);
    expect(rest.chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
    expect(rest.end).toMatchObject({
      type: 'end',
      id: 'chatcmpl-fake0001',
      model: 'gpt-4o-mini',
      usage: { prompt_tokens: 21, completion_tokens: 13, total_tokens: 34 },
    });
  });

  it('keeps the caller’s stream_options and forwards the upstream’s bytes unchanged', async () => {
    const read = await readChatStream(
      openai.stream(ask({ stream_options: { include_obfuscation: false } }), ctx()),
    );
    expect(fake.requests[0]?.body.stream_options).toEqual({
      include_obfuscation: false,
      include_usage: true,
    });
    // The fake's chunks carry "usage":null and a system_fingerprint: a re-serialising relay would still keep
    // them, but only a byte relay keeps the upstream's exact key order with usage last.
    expect(read.frames[1]?.toString()).toMatch(/^data: \{"id":"chatcmpl-fake0001",.*"usage":null\}\n\n$/);
  });

  it('gives the connection back to the pool after a clean stream, and cuts it after an abandoned one', async () => {
    const ownPools = new UpstreamPools();
    const single = createOpenAiCompatibleProvider({
      name: 'openai',
      baseUrl: fake.url,
      apiKey: KEY,
      timeoutMs: 2_000,
      pools: ownPools,
    });
    const settle = () => new Promise((resolve) => setTimeout(resolve, 30));
    try {
      await readChatStream(single.stream(ask(), ctx()));
      // The rest of the response (the chunked-encoding end) is read in the background.
      await settle();
      await readChatStream(single.stream(ask(), ctx()));
      expect(fake.requests[1]?.remotePort).toBe(fake.requests[0]?.remotePort);

      fake.setScript({ events: 10, delayMs: 20 });
      for await (const _event of single.stream(ask(), ctx())) break;
      await settle();
      fake.setScript({});
      await single.complete(ask(), ctx());
      expect(fake.requests[3]?.remotePort).not.toBe(fake.requests[2]?.remotePort);
    } finally {
      await ownPools.close();
    }
  });

  it('streams tool calls: id and name first, then argument fragments', async () => {
    fake.setScript({ text: '', toolCalls: [{ name: 'get_weather', arguments: { city: 'Jakarta' } }] });
    const read = await readChatStream(openai.stream(ask(), ctx()));
    const calls = read.chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(calls[0]).toMatchObject({
      index: 0,
      id: 'call_fake0001',
      function: { name: 'get_weather', arguments: '' },
    });
    expect(calls.map((c) => c.function.arguments).join('')).toBe('{"city":"Jakarta"}');
    expect(read.chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('lifts usage off a finish chunk that carries it (Together style) and still forwards the chunk', async () => {
    fake.setScript({ text: 'ok', usageOnFinishChunk: true, usage: { prompt: 5, completion: 1 } });
    const read = await readChatStream(openai.stream(ask(), ctx()));
    const last = read.chunks.at(-1);
    expect(last?.choices[0]?.finish_reason).toBe('stop');
    expect(last).not.toHaveProperty('usage');
    expect(read.end?.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 1 });
  });

  it.each([
    ['no_usage', { kind: 'no_usage' as const }, 'without usage'],
    ['no_done', { kind: 'no_done' as const }, 'before [DONE]'],
    ['die', { kind: 'die' as const, afterEvents: 3 }, 'connection'],
    [
      'error_event',
      { kind: 'error_event' as const, afterEvents: 3, message: 'model crashed' },
      'model crashed',
    ],
  ])(
    'fails explicitly after the first byte when the stream goes wrong: %s',
    async (_name, failure, message) => {
      fake.setScript({ failure });
      await expectStreamFailureAfterFirstByte(openai.stream(ask(), ctx()), message);
    },
  );
});

describe('openai-compatible failures', () => {
  it('maps a 400 to bad_request with the upstream’s message', async () => {
    fake.setScript({
      failure: { kind: 'status', status: 400, message: "Invalid 'temperature': must be <= 2" },
    });
    await expect(openai.complete(ask(), ctx())).rejects.toMatchObject({
      kind: 'bad_request',
      options: { status: 400, beforeFirstByte: true, upstreamMessage: "Invalid 'temperature': must be <= 2" },
    });
  });

  it('reports a rejected key as kasir’s credential problem and never echoes the key', async () => {
    const wrong = createOpenAiCompatibleProvider({
      name: 'openai',
      baseUrl: fake.url,
      apiKey: 'sk-wrong-key-987654',
      timeoutMs: 2_000,
      pools,
    });
    const error = await wrong.complete(ask(), ctx()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ kind: 'upstream', options: { status: 401 } });
    expect(
      JSON.stringify({ ...(error as UpstreamError), message: (error as UpstreamError).message }),
    ).not.toContain('sk-wrong-key');
    expect((error as UpstreamError).message).toContain("rejected kasir's credentials");
  });

  it.each([429, 500, 503])(
    'maps %i to a retryable upstream failure, before the first byte, on streams too',
    async (status) => {
      fake.setScript({ failure: { kind: 'status', status } });
      await expect(openai.complete(ask(), ctx())).rejects.toMatchObject({
        kind: 'upstream',
        options: { status, beforeFirstByte: true },
      });
      await expect(readChatStream(openai.stream(ask(), ctx()))).rejects.toMatchObject({
        kind: 'upstream',
        retryable: true,
        options: { status, beforeFirstByte: true },
      });
    },
  );

  it('times out a hanging upstream', async () => {
    const quick = createOpenAiCompatibleProvider({
      name: 'openai',
      baseUrl: fake.url,
      apiKey: KEY,
      timeoutMs: 200,
      pools,
    });
    fake.setScript({ failure: { kind: 'hang' } });
    await expect(quick.complete(ask(), ctx())).rejects.toMatchObject({
      kind: 'timeout',
      options: { beforeFirstByte: true },
    });
    await expect(readChatStream(quick.stream(ask(), ctx()))).rejects.toMatchObject({ kind: 'timeout' });
  });

  it('treats a body that is not JSON as an upstream failure', async () => {
    fake.setScript({ failure: { kind: 'invalid_json' } });
    await expect(openai.complete(ask(), ctx())).rejects.toMatchObject({
      kind: 'upstream',
      options: { beforeFirstByte: true },
    });
  });

  it('treats a refused connection as a retryable upstream failure', async () => {
    const closed = await startFakeOpenAI();
    const url = closed.url;
    await closed.close();
    const gone = createOpenAiCompatibleProvider({
      name: 'openai',
      baseUrl: url,
      apiKey: KEY,
      timeoutMs: 2_000,
      pools,
    });
    await expect(gone.complete(ask(), ctx())).rejects.toMatchObject({ kind: 'upstream', retryable: true });
  });

  it('stops the upstream request when the call is aborted mid-stream', async () => {
    fake.setScript({ events: 10, delayMs: 30 });
    const controller = new AbortController();
    const reason = new Error('client went away');
    const run = async () => {
      for await (const event of openai.stream(ask(), { signal: controller.signal, requestId: 'r' })) {
        if (event.type === 'frame') controller.abort(reason);
      }
    };
    await expect(run()).rejects.toBe(reason);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fake.requests[0]?.finished).toBe(false);
  });
});

describe('relayOpenAiStream', () => {
  const client = new UpstreamClient({
    provider: 'vllm',
    baseUrl: 'http://127.0.0.1:1',
    timeoutMs: 1_000,
    pools: new UpstreamPools(),
  });
  const relayed = (...chunks: string[]) =>
    relayOpenAiStream(framesOf(chunks), client, 'local-model', new AbortController().signal);
  const relay = (...chunks: string[]) => readChatStream(relayed(...chunks));
  const chunk = (content: string) =>
    JSON.stringify({
      id: 'c1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'm',
      choices: [{ index: 0, delta: { content } }],
    });
  const usage = JSON.stringify({ id: 'c1', choices: [], usage: { prompt_tokens: 2, completion_tokens: 3 } });

  it('tolerates CRLF, comments, event lines and frames split anywhere, re-framing only odd frames', async () => {
    const read = await relay(
      ': OPENROUTER PROCESSING\n\n',
      `data: ${chunk('Hel')}\r\n\r\ndata: ${chunk('lo')}`,
      `\n\nevent: message\ndata: ${chunk('!')}\n\n`,
      `data: ${usage}\n\ndata: [DONE]\n\n`,
    );
    expect(read.text).toBe('Hello!');
    expect(read.frames.map((f) => f.toString()).every((f) => /^data: \{.*\}\n\n$/.test(f))).toBe(true);
    expect(read.end).toMatchObject({ id: 'c1', model: 'm', created: 1, usage: { total_tokens: 5 } });
  });

  it('forwards what one read completed as one event, the upstream’s bytes, without the usage-only chunk', async () => {
    const content = `data: ${chunk('Hel')}\n\ndata: ${chunk('lo')}\n\n`;
    const events: ChatStreamEvent[] = [];
    for await (const event of relayed(`${content}data: ${usage}\n\ndata: [DONE]\n\n`)) events.push(event);
    expect(events.map((e) => e.type)).toEqual(['frame', 'end']);
    expect(events[0]?.type === 'frame' && events[0].bytes.toString()).toBe(content);
    expect(events[1]).toMatchObject({ id: 'c1', usage: { total_tokens: 5 } });
  });

  it('leaves out a comment between two chunks of one read, and forwards the rest together', async () => {
    const events: ChatStreamEvent[] = [];
    const first = `data: ${chunk('Hel')}\n\n`;
    const second = `data: ${chunk('lo')}\n\n`;
    for await (const event of relayed(`${first}: ping\n\n${second}data: ${usage}\n\ndata: [DONE]\n\n`))
      events.push(event);
    expect(events.map((e) => e.type)).toEqual(['frame', 'end']);
    expect(events[0]?.type === 'frame' && events[0].bytes.toString()).toBe(first + second);
  });

  it('forwards the frames a read brought before an error event, then fails after the first byte', async () => {
    const events: ChatStreamEvent[] = [];
    const run = async () => {
      const read = relayed(`data: ${chunk('Hi')}\n\nevent: error\ndata: {"error":{"message":"boom"}}\n\n`);
      for await (const event of read) events.push(event);
    };
    await expect(run()).rejects.toMatchObject({
      kind: 'upstream',
      message: expect.stringContaining('boom'),
      options: { beforeFirstByte: false },
    });
    expect(events.map((e) => e.type)).toEqual(['frame']);
  });

  it('fails when the stream ends without [DONE]', async () => {
    await expect(relay(`data: ${chunk('x')}\n\ndata: ${usage}\n\n`)).rejects.toMatchObject({
      kind: 'upstream',
      options: { beforeFirstByte: false },
    });
  });

  it('fails before the first byte when nothing was forwarded', async () => {
    await expect(relay(`data: ${usage}\n\n`)).rejects.toMatchObject({
      kind: 'upstream',
      options: { beforeFirstByte: true },
    });
  });
});

describe('xAI usage in the common semantics', () => {
  let xai: FakeUpstream;
  let grok: ChatProvider;
  beforeAll(async () => {
    xai = await startFakeOpenAI({ apiKey: KEY, dialect: 'xai' });
    grok = createOpenAiCompatibleProvider({
      name: 'xai',
      baseUrl: xai.url,
      apiKey: KEY,
      timeoutMs: 2_000,
      pools,
    });
  });
  afterAll(() => xai.close());
  const expected = {
    prompt_tokens: 30,
    completion_tokens: 127,
    total_tokens: 157,
    completion_tokens_details: { reasoning_tokens: 125 },
  };

  it('folds reasoning counted apart into completion_tokens (not streamed)', async () => {
    xai.setScript({ text: 'Hi', usage: { prompt: 30, completion: 127, reasoning: 125 } });
    const completion = await grok.complete({ ...ask(), model: 'grok-4' }, ctx());
    expect(completion.usage).toMatchObject(expected);
  });

  it('folds reasoning counted apart into completion_tokens (streamed)', async () => {
    xai.setScript({ text: 'Hi', usage: { prompt: 30, completion: 127, reasoning: 125 } });
    const read = await readChatStream(grok.stream({ ...ask(), model: 'grok-4' }, ctx()));
    expect(read.end?.usage).toMatchObject(expected);
  });

  it('leaves OpenAI’s usage, which already includes reasoning, as it is', async () => {
    fake.setScript({ text: 'Hi', usage: { prompt: 30, completion: 127, reasoning: 125 } });
    const completion = await openai.complete(ask(), ctx());
    expect(completion.usage).toMatchObject(expected);
  });
});
