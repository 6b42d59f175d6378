// The Anthropic adapter: the common chat request mapped to Anthropic's (toAnthropicRequest), calls against
// the fake Anthropic API, and translateAnthropicStream.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeThinkingSignature, startFakeAnthropic } from '../../../test/fakes/anthropic-upstream.js';
import {
  expectStreamFailureAfterFirstByte,
  type FakeUpstream,
  readChatStream,
} from '../../../test/fakes/chat-upstream.js';
import { framesOf } from '../../../test/support/frames.js';
import { UpstreamPools } from '../pools.js';
import type { CallContext, ChatProvider } from '../types.js';
import { UpstreamClient } from '../upstream-client.js';
import { createAnthropicProvider } from './provider.js';
import { toAnthropicRequest } from './request.js';
import { translateAnthropicStream } from './stream.js';

const KEY = 'sk-ant-test-0123456789';
const MODEL = 'claude-sonnet-4-5';
const ctx = (): CallContext => ({ signal: new AbortController().signal, requestId: 'req-1' });
const ask = (extra: Record<string, unknown> = {}) => ({
  model: MODEL,
  messages: [{ role: 'user', content: 'Hi' }],
  ...extra,
});

const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

describe('toAnthropicRequest', () => {
  it('lifts system messages to `system` and defaults max_tokens to 1024', () => {
    const request = toAnthropicRequest({
      model: MODEL,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in Indonesian.' }] },
        { role: 'user', content: 'Hi' },
      ],
      temperature: 0.2,
      top_p: 0.9,
      stop: 'END',
      seed: 1,
      presence_penalty: 1,
    });
    expect(request).toEqual({
      model: MODEL,
      system: 'Be brief.\n\nAnswer in Indonesian.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      max_tokens: 1024,
      temperature: 0.2,
      stop_sequences: ['END'],
    });
  });
  it('keeps temperature and drops top_p when both are given (Claude refuses the pair)', () => {
    expect(toAnthropicRequest(ask({ temperature: 0.7, top_p: 0.9 }))).toMatchObject({ temperature: 0.7 });
    expect(toAnthropicRequest(ask({ temperature: 0.7, top_p: 0.9 }))).not.toHaveProperty('top_p');
    expect(toAnthropicRequest(ask({ top_p: 0.9 }))).toMatchObject({ top_p: 0.9 });
  });
  it('puts the signed reasoning handed back in reasoning_details first in the assistant turn', () => {
    const request = toAnthropicRequest(
      ask({
        reasoning_effort: 'low',
        max_tokens: 4000,
        messages: [
          { role: 'user', content: 'Weather in Jakarta?' },
          {
            role: 'assistant',
            content: null,
            reasoning_details: [
              { type: 'reasoning.text', text: 'Use the ', format: 'anthropic-claude-v1', index: 0 },
              { type: 'reasoning.text', text: 'tool.', format: 'anthropic-claude-v1', index: 0 },
              { type: 'reasoning.text', signature: 'sig-1', format: 'anthropic-claude-v1', index: 0 },
              { type: 'reasoning.encrypted', data: 'opaque', format: 'anthropic-claude-v1', index: 1 },
              { type: 'reasoning.text', text: 'other', format: 'google-gemini-v1', index: 2 },
            ],
            tool_calls: [
              { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'toolu_1', content: '31°C' },
        ],
        tools: [weatherTool],
      }),
    );
    expect((request.messages as Array<{ content: unknown[] }>)[1]?.content).toEqual([
      { type: 'thinking', thinking: 'Use the tool.', signature: 'sig-1' },
      { type: 'redacted_thinking', data: 'opaque' },
      { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} },
    ]);
    expect(request.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
  });
  it('turns thinking off for a tool loop whose assistant turn came back without its signed thinking', () => {
    const request = toAnthropicRequest(
      ask({
        reasoning_effort: 'high',
        max_tokens: 8000,
        messages: [
          { role: 'user', content: 'Weather in Jakarta?' },
          {
            role: 'assistant',
            tool_calls: [
              { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'toolu_1', content: '31°C' },
        ],
        tools: [weatherTool],
      }),
    );
    expect(request).not.toHaveProperty('thinking');
  });

  it('uses max_completion_tokens or max_tokens as given', () => {
    expect(toAnthropicRequest(ask({ max_completion_tokens: 300 })).max_tokens).toBe(300);
    expect(toAnthropicRequest(ask({ max_tokens: 200 })).max_tokens).toBe(200);
  });

  it('maps images: data URLs inline as base64, http(s) URLs by URL', () => {
    const request = toAnthropicRequest(
      ask({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Compare' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
              { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
            ],
          },
        ],
      }),
    );
    expect(request.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
        ],
      },
    ]);
  });

  it('maps a tool round trip: tool_calls → tool_use, tool messages → tool_result in one user turn', () => {
    const request = toAnthropicRequest(
      ask({
        messages: [
          { role: 'user', content: 'Weather in Jakarta and Bandung?' },
          {
            role: 'assistant',
            content: 'Checking.',
            tool_calls: [
              {
                id: 'toolu_1',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"Jakarta"}' },
              },
              {
                id: 'toolu_2',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"Bandung"}' },
              },
            ],
          },
          { role: 'tool', tool_call_id: 'toolu_1', content: '31°C' },
          { role: 'tool', tool_call_id: 'toolu_2', content: [{ type: 'text', text: '24°C' }] },
          { role: 'user', content: 'Thanks' },
        ],
        tools: [weatherTool],
        tool_choice: 'auto',
      }),
    );
    expect(request.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Jakarta and Bandung?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Jakarta' } },
          { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Bandung' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '31°C' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: '24°C' }] },
          { type: 'text', text: 'Thanks' },
        ],
      },
    ]);
    expect(request.tools).toEqual([
      {
        name: 'get_weather',
        description: 'Weather for a city',
        input_schema: weatherTool.function.parameters,
      },
    ]);
    expect(request.tool_choice).toEqual({ type: 'auto' });
  });

  it('maps tool_choice none/required/named and parallel_tool_calls', () => {
    const choice = (tool_choice: unknown, extra: Record<string, unknown> = {}) =>
      toAnthropicRequest(ask({ tools: [weatherTool], tool_choice, ...extra })).tool_choice;
    expect(choice('none')).toEqual({ type: 'none' });
    expect(choice('required')).toEqual({ type: 'any' });
    expect(choice({ type: 'function', function: { name: 'get_weather' } })).toEqual({
      type: 'tool',
      name: 'get_weather',
    });
    expect(choice('auto', { parallel_tool_calls: false })).toEqual({
      type: 'auto',
      disable_parallel_tool_use: true,
    });
  });

  it('maps reasoning_effort to a thinking budget within max_tokens, and drops it where it cannot apply', () => {
    expect(
      toAnthropicRequest(ask({ reasoning_effort: 'high', max_tokens: 64_000, temperature: 0.3 })),
    ).toMatchObject({
      thinking: { type: 'enabled', budget_tokens: 16_384 },
      max_tokens: 64_000,
    });
    expect(
      toAnthropicRequest(ask({ reasoning_effort: 'high', max_tokens: 64_000, temperature: 0.3 })),
    ).not.toHaveProperty('temperature');
    expect(toAnthropicRequest(ask({ reasoning_effort: 'medium', max_tokens: 4000 })).thinking).toEqual({
      type: 'enabled',
      budget_tokens: 2000,
    });
    expect(toAnthropicRequest(ask({ reasoning_effort: 'low' })).thinking).toBeUndefined();
    expect(
      toAnthropicRequest(
        ask({ reasoning_effort: 'high', max_tokens: 8000, model: 'claude-3-5-haiku-20241022' }),
      ).thinking,
    ).toBeUndefined();
    expect(
      toAnthropicRequest(
        ask({ reasoning_effort: 'high', max_tokens: 8000, tools: [weatherTool], tool_choice: 'required' }),
      ).thinking,
    ).toBeUndefined();
    expect(
      toAnthropicRequest(
        ask({ reasoning_effort: 'high', max_tokens: 8000, model: 'claude-3-7-sonnet-latest' }),
      ).thinking,
    ).toEqual({
      type: 'enabled',
      budget_tokens: 4000,
    });
  });

  it('refuses what Anthropic cannot express, as bad_request', () => {
    expect(() => toAnthropicRequest(ask({ n: 2 }))).toThrow(expect.objectContaining({ kind: 'bad_request' }));
    expect(() =>
      toAnthropicRequest(
        ask({
          messages: [
            { role: 'assistant', tool_calls: [{ id: 'x', function: { name: 'f', arguments: '{oops' } }] },
          ],
        }),
      ),
    ).toThrow(expect.objectContaining({ kind: 'bad_request' }));
    expect(() =>
      toAnthropicRequest(
        ask({
          messages: [
            { role: 'user', content: [{ type: 'input_audio', input_audio: { data: '', format: 'wav' } }] },
          ],
        }),
      ),
    ).toThrow(expect.objectContaining({ kind: 'bad_request' }));
  });
});

describe('anthropic adapter against the fake', () => {
  let fake: FakeUpstream;
  let pools: UpstreamPools;
  let anthropic: ChatProvider;

  beforeAll(async () => {
    fake = await startFakeAnthropic({ apiKey: KEY });
    pools = new UpstreamPools();
    anthropic = createAnthropicProvider({ baseUrl: fake.url, apiKey: KEY, timeoutMs: 2_000, pools });
  });
  afterAll(async () => {
    await pools.close();
    await fake.close();
  });
  beforeEach(() => {
    fake.requests.length = 0;
    fake.setScript({});
  });

  it('sends the key and version headers and maps the answer and its usage (cache included)', async () => {
    fake.setScript({ text: 'Halo!', usage: { prompt: 100, completion: 7, cacheRead: 60, cacheWrite: 30 } });
    const completion = await anthropic.complete(ask(), ctx());
    expect(fake.requests[0]?.headers).toMatchObject({ 'x-api-key': KEY, 'anthropic-version': '2023-06-01' });
    expect(fake.requests[0]?.body).toMatchObject({ model: MODEL, max_tokens: 1024 });
    expect(completion).toMatchObject({
      id: 'msg_fake0001',
      object: 'chat.completion',
      model: MODEL,
      choices: [{ index: 0, message: { role: 'assistant', content: 'Halo!' }, finish_reason: 'stop' }],
      usage: {
        prompt_tokens: 100,
        completion_tokens: 7,
        total_tokens: 107,
        prompt_tokens_details: { cached_tokens: 60, cache_creation_tokens: 30 },
      },
    });
  });

  it('maps tool_use blocks to tool_calls with JSON-text arguments, and thinking to reasoning_content', async () => {
    fake.setScript({
      text: '',
      reasoning: 'User wants weather.',
      toolCalls: [{ name: 'get_weather', arguments: { city: 'Jakarta' } }],
    });
    const completion = await anthropic.complete(ask({ tools: [weatherTool] }), ctx());
    expect(completion.choices[0]).toEqual({
      index: 0,
      logprobs: null,
      finish_reason: 'tool_calls',
      message: {
        role: 'assistant',
        content: null,
        refusal: null,
        reasoning_content: 'User wants weather.',
        reasoning_details: [
          {
            type: 'reasoning.text',
            text: 'User wants weather.',
            signature: fakeThinkingSignature('User wants weather.'),
            format: 'anthropic-claude-v1',
            index: 0,
          },
        ],
        tool_calls: [
          {
            id: 'toolu_fake0001',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Jakarta"}' },
          },
        ],
      },
    });
  });

  it.each([
    ['length', 'length'],
    ['content_filter', 'content_filter'],
  ] as const)('maps the stop reason for %s', async (finish, expected) => {
    fake.setScript({ finish });
    const completion = await anthropic.complete(ask(), ctx());
    expect(completion.choices[0]).toMatchObject({ finish_reason: expected });
  });

  it('delivers vision input in Anthropic’s image blocks', async () => {
    const content = [
      { type: 'text', text: 'What is this?' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
      { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
    ];
    const completion = await anthropic.complete(ask({ messages: [{ role: 'user', content }] }), ctx());
    expect(completion.choices[0]).toMatchObject({
      message: {
        content: expect.stringContaining('2 image(s): image/png inline, https://example.com/cat.jpg'),
      },
    });
  });

  it('streams deltas as they arrive: role first, content, finish, then end with usage', async () => {
    fake.setScript({
      text: 'one two three four five six seven eight nine ten',
      events: 10,
      delayMs: 20,
      usage: { prompt: 40, completion: 12 },
    });
    const stream = anthropic.stream(ask(), ctx())[Symbol.asyncIterator]();
    const first = await stream.next();
    expect(fake.requests[0]?.finished).toBe(false);
    const rest = await readChatStream({ [Symbol.asyncIterator]: () => stream });
    expect(fake.requests[0]?.body).toMatchObject({ stream: true });

    const firstChunk = JSON.parse((first.value as { bytes: Buffer }).bytes.toString().slice(6));
    expect(firstChunk).toMatchObject({
      id: 'msg_fake0001',
      object: 'chat.completion.chunk',
      model: MODEL,
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
    });
    expect(rest.text).toBe('one two three four five six seven eight nine ten');
    expect(rest.chunks.filter((c) => c.choices[0]?.delta.content).length).toBe(10);
    expect(rest.chunks.at(-1)?.choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
    expect(rest.end).toMatchObject({
      id: 'msg_fake0001',
      model: MODEL,
      usage: { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 },
    });
  });

  it('streams tool calls: index, id and name first, then the argument fragments', async () => {
    fake.setScript({
      text: 'Checking.',
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'Jakarta' } },
        { name: 'get_weather', arguments: { city: 'Bandung' } },
      ],
    });
    const read = await readChatStream(anthropic.stream(ask({ tools: [weatherTool] }), ctx()));
    const calls = read.chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(calls[0]).toEqual({
      index: 0,
      id: 'toolu_fake0001',
      type: 'function',
      function: { name: 'get_weather', arguments: '' },
    });
    const argsOf = (index: number) =>
      calls
        .filter((c) => c.index === index)
        .map((c) => c.function.arguments)
        .join('');
    expect(argsOf(0)).toBe('{"city":"Jakarta"}');
    expect(argsOf(1)).toBe('{"city":"Bandung"}');
    expect(calls.find((c) => c.index === 1)?.id).toBe('toolu_fake0002');
    expect(read.chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('streams thinking as reasoning_content', async () => {
    fake.setScript({ text: 'ok', reasoning: 'Let me think.' });
    const read = await readChatStream(anthropic.stream(ask(), ctx()));
    expect(read.chunks.map((c) => c.choices[0]?.delta.reasoning_content ?? '').join('')).toBe(
      'Let me think.',
    );
  });

  it('answers temperature and top_p together (top_p dropped)', async () => {
    const completion = await anthropic.complete(ask({ temperature: 0.5, top_p: 0.9 }), ctx());
    expect(completion.choices[0]).toMatchObject({ finish_reason: 'stop' });
    expect(fake.requests[0]?.body).toMatchObject({ temperature: 0.5 });
    expect(fake.requests[0]?.body).not.toHaveProperty('top_p');
  });

  it.each([false, true])(
    'completes a multi-turn tool loop with thinking, handing the signed thinking back (streamed: %s)',
    async (streamed) => {
      const question = { role: 'user', content: 'Weather in Jakarta?' };
      const turn = ask({ reasoning_effort: 'medium', max_tokens: 4000, tools: [weatherTool] });
      fake.setScript(
        {
          text: '',
          reasoning: 'I should call get_weather.',
          toolCalls: [{ name: 'get_weather', arguments: { city: 'Jakarta' } }],
        },
        { text: 'It is 31°C in Jakarta.' },
      );
      let assistant: Record<string, unknown>;
      if (streamed) {
        const read = await readChatStream(anthropic.stream({ ...turn, messages: [question] }, ctx()));
        const calls = read.chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
        assistant = {
          role: 'assistant',
          content: null,
          reasoning_details: read.chunks.flatMap(
            (c) => ((c.choices[0]?.delta ?? {}) as { reasoning_details?: unknown[] }).reasoning_details ?? [],
          ),
          tool_calls: [
            {
              id: calls[0]?.id,
              type: 'function',
              function: { name: 'get_weather', arguments: calls.map((c) => c.function.arguments).join('') },
            },
          ],
        };
      } else {
        const first = await anthropic.complete({ ...turn, messages: [question] }, ctx());
        assistant = (first.choices[0] as { message: Record<string, unknown> }).message;
      }
      expect(fake.requests[0]?.body.thinking).toEqual({ type: 'enabled', budget_tokens: 2000 });
      const toolCallId = (assistant.tool_calls as Array<{ id: string }>)[0]?.id;
      const second = await anthropic.complete(
        {
          ...turn,
          messages: [question, assistant, { role: 'tool', tool_call_id: toolCallId, content: '31°C' }],
        },
        ctx(),
      );
      expect(second.choices[0]).toMatchObject({ message: { content: 'It is 31°C in Jakarta.' } });
      expect(fake.requests[1]?.body.thinking).toEqual({ type: 'enabled', budget_tokens: 2000 });
      expect(
        ((fake.requests[1]?.body.messages ?? []) as Array<{ content: unknown[] }>)[1]?.content[0],
      ).toEqual({
        type: 'thinking',
        thinking: 'I should call get_weather.',
        signature: fakeThinkingSignature('I should call get_weather.'),
      });
    },
  );

  it('is refused by the fake, as by Anthropic, when thinking is on and the signature was altered', async () => {
    fake.setScript({ text: 'ok' });
    const error = await anthropic
      .complete(
        ask({
          reasoning_effort: 'low',
          max_tokens: 4000,
          messages: [
            { role: 'user', content: 'Hi' },
            {
              role: 'assistant',
              content: 'Hello',
              reasoning_details: [
                {
                  type: 'reasoning.text',
                  text: 'x',
                  signature: 'forged',
                  format: 'anthropic-claude-v1',
                  index: 0,
                },
              ],
            },
            { role: 'user', content: 'Again' },
          ],
        }),
        ctx(),
      )
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'bad_request', options: { status: 400 } });
  });

  it('maps a 400 to bad_request with Anthropic’s message', async () => {
    fake.setScript({
      failure: { kind: 'status', status: 400, message: 'messages.0.content: Input should be a valid list' },
    });
    await expect(anthropic.complete(ask(), ctx())).rejects.toMatchObject({
      kind: 'bad_request',
      options: {
        status: 400,
        upstreamMessage: 'messages.0.content: Input should be a valid list',
        beforeFirstByte: true,
      },
    });
  });

  it('reports a wrong key as kasir’s credential problem', async () => {
    const wrong = createAnthropicProvider({
      baseUrl: fake.url,
      apiKey: 'sk-ant-wrong-000000',
      timeoutMs: 2_000,
      pools,
    });
    const error = await wrong.complete(ask(), ctx()).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'upstream', options: { status: 401 } });
    expect((error as Error).message).toContain("rejected kasir's credentials");
    expect((error as Error).message).not.toContain('sk-ant-wrong');
  });

  it.each([429, 500, 529])(
    'maps %i to a retryable upstream failure before the first byte',
    async (status) => {
      fake.setScript({ failure: { kind: 'status', status } });
      await expect(readChatStream(anthropic.stream(ask(), ctx()))).rejects.toMatchObject({
        kind: 'upstream',
        retryable: true,
        options: { status, beforeFirstByte: true },
      });
    },
  );

  // undici checks its timeouts on a coarse tick (about half a second), so the gaps here are seconds apart.
  it('waits for a whole non-streamed answer up to answerTimeoutMs, not the first-byte timeout', async () => {
    const patient = createAnthropicProvider({
      baseUrl: fake.url,
      apiKey: KEY,
      timeoutMs: 1_000,
      answerTimeoutMs: 5_000,
      pools,
    });
    fake.setScript({ text: 'Long answer', answerDelayMs: 2_500 });
    const completion = await patient.complete(ask(), ctx());
    expect(completion.choices[0]).toMatchObject({ message: { content: 'Long answer' } });
    const impatient = createAnthropicProvider({
      baseUrl: fake.url,
      apiKey: KEY,
      timeoutMs: 1_000,
      answerTimeoutMs: 1_000,
      pools,
    });
    await expect(impatient.complete(ask(), ctx())).rejects.toMatchObject({
      kind: 'timeout',
      message: expect.stringContaining('within 1000 ms'),
    });
  });

  it('gives a stream timeoutMs to start, then idleTimeoutMs between events', async () => {
    const streams = createAnthropicProvider({
      baseUrl: fake.url,
      apiKey: KEY,
      timeoutMs: 1_000,
      idleTimeoutMs: 1_000,
      answerTimeoutMs: 5_000,
      pools,
    });
    fake.setScript({ answerDelayMs: 2_500 });
    await expect(readChatStream(streams.stream(ask(), ctx()))).rejects.toMatchObject({
      kind: 'timeout',
      options: { beforeFirstByte: true },
    });
    fake.setScript({ text: 'one two three', events: 3, delayMs: 2_500 });
    const frames: unknown[] = [];
    const idle = async () => {
      for await (const event of streams.stream(ask(), ctx())) frames.push(event);
    };
    await expect(idle()).rejects.toMatchObject({
      kind: 'timeout',
      message: expect.stringContaining('stopped sending for 1000 ms'),
      options: { beforeFirstByte: false },
    });
    expect(frames.length).toBeGreaterThan(0);
    fake.setScript({ text: 'one two three', events: 3, delayMs: 100 });
    const read = await readChatStream(streams.stream(ask(), ctx()));
    expect(read.text).toBe('one two three');
  });

  it('times out a hanging upstream', async () => {
    const quick = createAnthropicProvider({ baseUrl: fake.url, apiKey: KEY, timeoutMs: 200, pools });
    fake.setScript({ failure: { kind: 'hang' } });
    await expect(quick.complete(ask(), ctx())).rejects.toMatchObject({
      kind: 'timeout',
      options: { beforeFirstByte: true },
    });
  });

  it.each([
    ['die', { kind: 'die' as const, afterEvents: 4 }, 'connection'],
    [
      'error_event',
      { kind: 'error_event' as const, afterEvents: 4, message: 'Overloaded' },
      'overloaded_error',
    ],
    ['no_done', { kind: 'no_done' as const }, 'before message_stop'],
    ['no_usage', { kind: 'no_usage' as const }, 'without usage'],
  ])(
    'fails explicitly after the first byte when the stream goes wrong: %s',
    async (_name, failure, message) => {
      fake.setScript({ failure });
      await expectStreamFailureAfterFirstByte(anthropic.stream(ask(), ctx()), message);
    },
  );
});

describe('translateAnthropicStream', () => {
  const client = new UpstreamClient({
    provider: 'anthropic',
    baseUrl: 'http://127.0.0.1:1',
    timeoutMs: 1_000,
    pools: new UpstreamPools(),
  });
  const event = (data: Record<string, unknown>) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;

  it('streams redacted thinking as an encrypted piece and numbers reasoning pieces apart from blocks', async () => {
    const read = await readChatStream(
      translateAnthropicStream(
        framesOf([
          event({
            type: 'message_start',
            message: { id: 'msg_1', model: MODEL, usage: { input_tokens: 5, output_tokens: 1 } },
          }),
          event({
            type: 'content_block_start',
            index: 0,
            content_block: { type: 'redacted_thinking', data: 'opaque' },
          }),
          event({ type: 'content_block_stop', index: 0 }),
          event({ type: 'content_block_start', index: 1, content_block: { type: 'thinking', thinking: '' } }),
          event({
            type: 'content_block_delta',
            index: 1,
            delta: { type: 'thinking_delta', thinking: 'Hm.' },
          }),
          event({
            type: 'content_block_delta',
            index: 1,
            delta: { type: 'signature_delta', signature: 'sig' },
          }),
          event({ type: 'content_block_start', index: 2, content_block: { type: 'text', text: '' } }),
          event({ type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: 'Hi' } }),
          event({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 9 } }),
          event({ type: 'message_stop' }),
        ]),
        client,
        new AbortController().signal,
      ),
    );
    const pieces = read.chunks.flatMap(
      (c) => ((c.choices[0]?.delta ?? {}) as { reasoning_details?: unknown[] }).reasoning_details ?? [],
    );
    expect(pieces).toEqual([
      { type: 'reasoning.encrypted', data: 'opaque', format: 'anthropic-claude-v1', index: 0 },
      { type: 'reasoning.text', text: 'Hm.', format: 'anthropic-claude-v1', index: 1 },
      { type: 'reasoning.text', signature: 'sig', format: 'anthropic-claude-v1', index: 1 },
    ]);
    expect(read.text).toBe('Hi');
    expect(read.end?.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 9 });
  });
});
