// The Gemini adapter: the common chat request mapped to Gemini's (toGeminiRequest), and calls against the
// fake Gemini API.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  expectStreamFailureAfterFirstByte,
  type FakeUpstream,
  readChatStream,
} from '../../../test/fakes/chat-upstream.js';
import { startFakeGemini } from '../../../test/fakes/gemini-upstream.js';
import { UpstreamPools } from '../pools.js';
import type { CallContext, ChatProvider } from '../types.js';
import { createGeminiProvider } from './provider.js';
import { mimeTypeOfUrl, SKIP_THOUGHT_SIGNATURE, thinkingConfigOf, toGeminiRequest } from './request.js';

const KEY = 'gm-test-0123456789';
const MODEL = 'gemini-2.5-flash';
const ctx = (): CallContext => ({ signal: new AbortController().signal, requestId: 'req-1' });
const ask = (extra: Record<string, unknown> = {}) => ({
  model: MODEL,
  messages: [{ role: 'user', content: 'Hi' }],
  ...extra,
});

const weatherParameters = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
  additionalProperties: false,
};
const weatherTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather for a city', parameters: weatherParameters },
};

describe('toGeminiRequest', () => {
  it('maps system, user and assistant turns and the generation settings', () => {
    const request = toGeminiRequest({
      model: `models/${MODEL}`,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello!' },
        { role: 'user', content: [{ type: 'text', text: 'Again' }] },
      ],
      max_tokens: 256,
      temperature: 0.4,
      top_p: 0.8,
      stop: ['END'],
      n: 2,
      seed: 42,
      response_format: { type: 'json_schema', json_schema: { name: 'x', schema: weatherParameters } },
    });
    expect(request).toEqual({
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'Hi' }] },
        { role: 'model', parts: [{ text: 'Hello!' }] },
        { role: 'user', parts: [{ text: 'Again' }] },
      ],
      generationConfig: {
        maxOutputTokens: 256,
        temperature: 0.4,
        topP: 0.8,
        stopSequences: ['END'],
        candidateCount: 2,
        seed: 42,
        responseMimeType: 'application/json',
        responseJsonSchema: weatherParameters,
      },
    });
  });

  it('maps images: data URLs to inlineData, http(s) URLs to fileData with a MIME type from the extension', () => {
    const request = toGeminiRequest(
      ask({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Compare' },
              { type: 'image_url', image_url: { url: 'data:image/webp;base64,UklGRg==' } },
              { type: 'image_url', image_url: { url: 'https://example.com/cat.PNG?size=large' } },
              { type: 'image_url', image_url: { url: 'https://example.com/photo' } },
            ],
          },
        ],
      }),
    );
    expect(request.contents).toEqual([
      {
        role: 'user',
        parts: [
          { text: 'Compare' },
          { inlineData: { mimeType: 'image/webp', data: 'UklGRg==' } },
          { fileData: { mimeType: 'image/png', fileUri: 'https://example.com/cat.PNG?size=large' } },
          { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/photo' } },
        ],
      },
    ]);
    expect(mimeTypeOfUrl('https://x.test/a.pdf')).toBe('application/pdf');
  });

  it('maps a tool round trip: functionCall parts with their signatures, functionResponse named by call id', () => {
    const request = toGeminiRequest(
      ask({
        model: 'gemini-3-pro-preview',
        messages: [
          { role: 'user', content: 'Weather in Jakarta and Bandung?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'call_a',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"Jakarta"}' },
                extra_content: { google: { thought_signature: 'sig-1' } },
              },
              {
                id: 'call_b',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"Bandung"}' },
              },
            ],
          },
          { role: 'tool', tool_call_id: 'call_a', content: '{"celsius":31}' },
          { role: 'tool', tool_call_id: 'call_b', content: 'rainy' },
          { role: 'user', content: 'Thanks' },
        ],
        tools: [weatherTool],
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
      }),
    );
    expect(request.contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather in Jakarta and Bandung?' }] },
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'get_weather', args: { city: 'Jakarta' } }, thoughtSignature: 'sig-1' },
          {
            functionCall: { name: 'get_weather', args: { city: 'Bandung' } },
            thoughtSignature: SKIP_THOUGHT_SIGNATURE,
          },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_weather', response: { celsius: 31 } } },
          { functionResponse: { name: 'get_weather', response: { result: 'rainy' } } },
        ],
      },
      { role: 'user', parts: [{ text: 'Thanks' }] },
    ]);
    expect(request.tools).toEqual([
      {
        functionDeclarations: [
          { name: 'get_weather', description: 'Weather for a city', parametersJsonSchema: weatherParameters },
        ],
      },
    ]);
    expect(request.toolConfig).toEqual({
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] },
    });
  });

  it('maps tool_choice auto/none/required to AUTO/NONE/ANY', () => {
    const mode = (tool_choice: string) =>
      (
        toGeminiRequest(ask({ tools: [weatherTool], tool_choice })).toolConfig as {
          functionCallingConfig: { mode: string };
        }
      ).functionCallingConfig.mode;
    expect([mode('auto'), mode('none'), mode('required')]).toEqual(['AUTO', 'NONE', 'ANY']);
  });

  it('adds no placeholder signature for models without signatures', () => {
    const request = toGeminiRequest(
      ask({
        messages: [
          {
            role: 'assistant',
            tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
          },
        ],
      }),
    );
    expect(request.contents).toEqual([{ role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }] }]);
  });

  it('refuses a tool result that answers no tool call', () => {
    expect(() =>
      toGeminiRequest(ask({ messages: [{ role: 'tool', tool_call_id: 'nope', content: 'x' }] })),
    ).toThrow(expect.objectContaining({ kind: 'bad_request' }));
  });

  it('maps reasoning_effort to thinkingConfig per model generation', () => {
    expect(thinkingConfigOf('gemini-2.5-flash', 'low')).toEqual({ thinkingBudget: 1024 });
    expect(thinkingConfigOf('gemini-2.5-flash', 'high')).toEqual({ thinkingBudget: 24576 });
    expect(thinkingConfigOf('gemini-2.5-flash', 'none')).toEqual({ thinkingBudget: 0 });
    expect(thinkingConfigOf('gemini-2.5-pro', 'none')).toEqual({ thinkingBudget: 128 });
    expect(thinkingConfigOf('gemini-3-pro-preview', 'medium')).toEqual({ thinkingLevel: 'high' });
    expect(thinkingConfigOf('gemini-3-flash-preview', 'medium')).toEqual({ thinkingLevel: 'medium' });
    expect(thinkingConfigOf('gemini-2.0-flash', 'high')).toBeUndefined();
    expect(toGeminiRequest(ask({ reasoning_effort: 'medium' })).generationConfig).toEqual({
      thinkingConfig: { thinkingBudget: 8192 },
    });
  });
});

describe('gemini adapter against the fake', () => {
  let fake: FakeUpstream;
  let pools: UpstreamPools;
  let gemini: ChatProvider;

  beforeAll(async () => {
    fake = await startFakeGemini({ apiKey: KEY });
    pools = new UpstreamPools();
    gemini = createGeminiProvider({ baseUrl: fake.url, apiKey: KEY, timeoutMs: 2_000, pools });
  });
  afterAll(async () => {
    await pools.close();
    await fake.close();
  });
  beforeEach(() => {
    fake.requests.length = 0;
    fake.setScript({});
  });

  it('posts to generateContent with the key in a header and maps the answer and usage', async () => {
    fake.setScript({ text: 'Halo!', usage: { prompt: 30, completion: 5, reasoning: 12, cacheRead: 10 } });
    const completion = await gemini.complete(ask(), ctx());
    const request = fake.requests[0];
    expect(request?.path).toBe(`/v1beta/models/${MODEL}:generateContent`);
    expect(request?.headers['x-goog-api-key']).toBe(KEY);
    expect(request?.path).not.toContain(KEY);
    expect(completion).toMatchObject({
      id: 'fake-response-0001',
      object: 'chat.completion',
      model: MODEL,
      choices: [{ index: 0, message: { role: 'assistant', content: 'Halo!' }, finish_reason: 'stop' }],
      usage: {
        prompt_tokens: 30,
        completion_tokens: 17,
        total_tokens: 47,
        prompt_tokens_details: { cached_tokens: 10 },
        completion_tokens_details: { reasoning_tokens: 12 },
      },
    });
  });

  it('maps function calls to tool_calls with generated ids and the thought signature', async () => {
    fake.setScript({ text: '', toolCalls: [{ name: 'get_weather', arguments: { city: 'Jakarta' } }] });
    const completion = await gemini.complete(ask({ tools: [weatherTool] }), ctx());
    const choice = completion.choices[0] as { finish_reason: string; message: { tool_calls: unknown[] } };
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.tool_calls).toEqual([
      {
        id: expect.stringMatching(/^call_[0-9a-f]{24}$/),
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Jakarta"}' },
        extra_content: { google: { thought_signature: 'fake-signature-1' } },
      },
    ]);
  });

  it.each([
    ['length', 'length'],
    ['content_filter', 'content_filter'],
  ] as const)('maps the finish reason for %s', async (finish, expected) => {
    fake.setScript({ finish });
    const completion = await gemini.complete(ask(), ctx());
    expect(completion.choices[0]).toMatchObject({ finish_reason: expected });
  });

  it('returns one choice per candidate (n)', async () => {
    const completion = await gemini.complete(ask({ n: 2 }), ctx());
    expect(completion.choices.map((c) => (c as { index: number }).index)).toEqual([0, 1]);
  });

  it('delivers vision input as inlineData and fileData', async () => {
    const content = [
      { type: 'text', text: 'What is this?' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
      { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
    ];
    const completion = await gemini.complete(ask({ messages: [{ role: 'user', content }] }), ctx());
    expect(completion.choices[0]).toMatchObject({
      message: {
        content: expect.stringContaining('2 image(s): image/png inline, https://example.com/cat.jpg'),
      },
    });
  });

  it('streams CRLF-separated events as they arrive and ends with the last usage', async () => {
    fake.setScript({
      text: 'one two three four five six seven eight nine ten',
      events: 10,
      delayMs: 20,
      usage: { prompt: 8, completion: 10 },
    });
    const stream = gemini.stream(ask(), ctx())[Symbol.asyncIterator]();
    const first = await stream.next();
    expect(first.value).toMatchObject({ type: 'frame' });
    expect(fake.requests[0]?.finished).toBe(false);
    const rest = await readChatStream({ [Symbol.asyncIterator]: () => stream });
    expect(fake.requests[0]?.path).toBe(`/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`);
    expect(rest.text).toBe('one two three four five six seven eight nine ten');
    expect(rest.chunks.at(-1)?.choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
    expect(rest.end).toMatchObject({
      id: 'fake-response-0001',
      model: MODEL,
      usage: { prompt_tokens: 8, completion_tokens: 10, total_tokens: 18 },
    });
  });

  it('streams function calls as complete tool call chunks', async () => {
    fake.setScript({
      text: 'Checking.',
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'Jakarta' } },
        { name: 'get_time', arguments: {} },
      ],
    });
    const read = await readChatStream(gemini.stream(ask({ tools: [weatherTool] }), ctx()));
    const calls = read.chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(calls).toEqual([
      {
        index: 0,
        id: expect.stringMatching(/^call_/),
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Jakarta"}' },
        extra_content: { google: { thought_signature: 'fake-signature-1' } },
      },
      {
        index: 1,
        id: expect.stringMatching(/^call_/),
        type: 'function',
        function: { name: 'get_time', arguments: '{}' },
        extra_content: { google: { thought_signature: 'fake-signature-2' } },
      },
    ]);
    expect(read.chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('completes a Gemini 3 tool loop: the thought signature handed back with the call is accepted', async () => {
    const model = 'gemini-3-flash-preview';
    fake.setScript(
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Jakarta' } }] },
      { text: '31°C' },
    );
    const first = await gemini.complete(ask({ model, tools: [weatherTool], reasoning_effort: 'low' }), ctx());
    const assistant = (first.choices[0] as { message: Record<string, unknown> }).message;
    const callId = (assistant.tool_calls as Array<{ id: string }>)[0]?.id;
    const messages = [
      { role: 'user', content: 'Weather?' },
      assistant,
      { role: 'tool', tool_call_id: callId, content: '31°C' },
    ];
    const second = await gemini.complete(ask({ model, tools: [weatherTool], messages }), ctx());
    expect(second.choices[0]).toMatchObject({ message: { content: '31°C' } });
    // The fake, as Gemini 3, refuses a replayed function call without a signature.
    fake.setScript({ text: 'ok' });
    const refused = await fetch(`${fake.url}/v1beta/models/${model}:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': KEY },
      body: JSON.stringify({
        contents: [
          { role: 'user', parts: [{ text: 'Weather?' }] },
          { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: {} } }] },
        ],
      }),
    });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('missing a thought_signature');
  });

  it('maps a 400 to bad_request with Google’s message', async () => {
    fake.setScript({
      failure: {
        kind: 'status',
        status: 400,
        message: '* GenerateContentRequest.generation_config.temperature: must be <= 2',
      },
    });
    await expect(gemini.complete(ask(), ctx())).rejects.toMatchObject({
      kind: 'bad_request',
      options: {
        status: 400,
        upstreamMessage: '* GenerateContentRequest.generation_config.temperature: must be <= 2',
      },
    });
  });

  it('recognises Google’s 400 API_KEY_INVALID as kasir’s credential problem', async () => {
    const wrong = createGeminiProvider({
      baseUrl: fake.url,
      apiKey: 'gm-wrong-000000',
      timeoutMs: 2_000,
      pools,
    });
    const error = await wrong.complete(ask(), ctx()).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'upstream', options: { status: 400 } });
    expect((error as Error).message).toContain("rejected kasir's credentials");
  });

  it.each([429, 500, 503])(
    'maps %i to a retryable upstream failure before the first byte',
    async (status) => {
      fake.setScript({ failure: { kind: 'status', status } });
      await expect(readChatStream(gemini.stream(ask(), ctx()))).rejects.toMatchObject({
        kind: 'upstream',
        retryable: true,
        options: { status, beforeFirstByte: true },
      });
    },
  );

  it('times out a hanging upstream', async () => {
    const quick = createGeminiProvider({ baseUrl: fake.url, apiKey: KEY, timeoutMs: 200, pools });
    fake.setScript({ failure: { kind: 'hang' } });
    await expect(readChatStream(quick.stream(ask(), ctx()))).rejects.toMatchObject({
      kind: 'timeout',
      options: { beforeFirstByte: true },
    });
  });

  it('treats an answer without usageMetadata as an upstream failure', async () => {
    fake.setScript({ failure: { kind: 'no_usage' } });
    await expect(gemini.complete(ask(), ctx())).rejects.toMatchObject({
      kind: 'upstream',
      message: expect.stringContaining('usage'),
    });
  });

  it.each([
    ['die', { kind: 'die' as const, afterEvents: 3 }, 'connection'],
    ['error_event', { kind: 'error_event' as const, afterEvents: 3, message: 'quota gone' }, 'quota gone'],
    ['no_done', { kind: 'no_done' as const }, 'before a finish reason'],
    ['no_usage', { kind: 'no_usage' as const }, 'without usage'],
  ])(
    'fails explicitly after the first byte when the stream goes wrong: %s',
    async (_name, failure, message) => {
      fake.setScript({ failure });
      await expectStreamFailureAfterFirstByte(gemini.stream(ask(), ctx()), message);
    },
  );
});
