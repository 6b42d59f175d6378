// Contract tests: the providers' official SDKs (@anthropic-ai/sdk, openai, @google/genai), unmodified, send the
// same operation as kasir's adapters to local recording servers; kasir's request must match the SDK's — method,
// path, auth and version headers, body. The SDK calls are written from the SDKs' own types, not from kasir's code.
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectedAnswerMs, maxNonStreamedTokens } from '../../src/providers/anthropic/long-calls.js';
import { createAnthropicProvider } from '../../src/providers/anthropic/provider.js';
import { createGeminiProvider } from '../../src/providers/gemini/provider.js';
import { createOpenAiCompatibleProvider } from '../../src/providers/openai-compatible/provider.js';
import { UpstreamPools } from '../../src/providers/pools.js';
import type { CallContext, ChatProvider } from '../../src/providers/types.js';
import {
  loadRecording,
  type ReceivedRequest,
  type RecordedInteraction,
  type RecordingServer,
  startRecordingServer,
} from '../fakes/recording-server.js';

const KEY = 'sk-contract-0123456789';
const ctx = (): CallContext => ({ signal: new AbortController().signal, requestId: 'contract' });
const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

/** Runs `call`, ignoring how it ends (only the request it sent matters here). */
async function sent(server: RecordingServer, call: () => Promise<unknown>): Promise<ReceivedRequest> {
  const before = server.requests.length;
  await call().catch(() => undefined);
  const request = server.requests[before];
  if (!request) throw new Error('no request reached the recording server');
  return request;
}

function expectSameRequest(kasir: ReceivedRequest, sdk: ReceivedRequest, headers: string[]): void {
  expect(kasir.method).toBe(sdk.method);
  expect(kasir.path.split('?')[0]).toBe(sdk.path.split('?')[0]);
  for (const name of headers) expect([name, kasir.headers[name]]).toEqual([name, sdk.headers[name]]);
  expect(kasir.body).toEqual(sdk.body);
}

let pools: UpstreamPools;
beforeAll(() => {
  pools = new UpstreamPools();
});
afterAll(() => pools.close());

describe('Anthropic: kasir’s Messages API requests match @anthropic-ai/sdk’s', () => {
  let server: RecordingServer;
  let sdk: Anthropic;
  let kasir: ChatProvider;
  const answers: RecordedInteraction[] = loadRecording('anthropic-thinking-tool-loop').interactions;
  beforeAll(async () => {
    server = await startRecordingServer(answers);
    sdk = new Anthropic({ apiKey: KEY, baseURL: server.url, maxRetries: 0 });
    kasir = createAnthropicProvider({ baseUrl: server.url, apiKey: KEY, timeoutMs: 5_000, pools });
  });
  afterAll(() => server.close());
  beforeEach(() => server.replay(answers));
  const headers = ['x-api-key', 'anthropic-version', 'content-type'];

  it('first turn with extended thinking, tools, a system prompt, stop sequences and a user id', async () => {
    const ours = await sent(server, () =>
      kasir.complete(
        {
          model: 'claude-sonnet-4-5',
          messages: [
            { role: 'system', content: 'Be brief.' },
            { role: 'user', content: 'Weather in Jakarta?' },
          ],
          max_tokens: 4000,
          reasoning_effort: 'medium',
          temperature: 0.3,
          tools: [weatherTool],
          tool_choice: 'auto',
          stop: ['END'],
          user: 'u-1',
        },
        ctx(),
      ),
    );
    const theirs = await sent(server, () =>
      sdk.messages.create({
        model: 'claude-sonnet-4-5',
        max_tokens: 4000,
        system: 'Be brief.',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Weather in Jakarta?' }] }],
        thinking: { type: 'enabled', budget_tokens: 2000 },
        tools: [
          {
            name: 'get_weather',
            description: 'Weather for a city',
            input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        ],
        tool_choice: { type: 'auto' },
        stop_sequences: ['END'],
        metadata: { user_id: 'u-1' },
      }),
    );
    expectSameRequest(ours, theirs, headers);
  });

  it('second turn of a tool loop: signed thinking, then tool_use, then the tool_result', async () => {
    const ours = await sent(server, () =>
      kasir.complete(
        {
          model: 'claude-sonnet-4-5',
          max_tokens: 4000,
          reasoning_effort: 'medium',
          tools: [weatherTool],
          messages: [
            { role: 'user', content: 'Weather in Jakarta?' },
            {
              role: 'assistant',
              content: null,
              reasoning_details: [
                {
                  type: 'reasoning.text',
                  text: 'Call the tool.',
                  signature: 'sig',
                  format: 'anthropic-claude-v1',
                  index: 0,
                },
              ],
              tool_calls: [
                {
                  id: 'toolu_1',
                  type: 'function',
                  function: { name: 'get_weather', arguments: '{"city":"Jakarta"}' },
                },
              ],
            },
            { role: 'tool', tool_call_id: 'toolu_1', content: '31°C' },
          ],
        },
        ctx(),
      ),
    );
    const theirs = await sent(server, () =>
      sdk.messages.create({
        model: 'claude-sonnet-4-5',
        max_tokens: 4000,
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Weather in Jakarta?' }] },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'Call the tool.', signature: 'sig' },
              { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Jakarta' } },
            ],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '31°C' }] },
        ],
        thinking: { type: 'enabled', budget_tokens: 2000 },
        tools: [
          {
            name: 'get_weather',
            description: 'Weather for a city',
            input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        ],
      }),
    );
    expectSameRequest(ours, theirs, headers);
  });

  it('temperature and top_p together: kasir sends what a valid SDK call sends (temperature only)', async () => {
    const ours = await sent(server, () =>
      kasir.complete(
        {
          model: 'claude-haiku-4-5',
          messages: [{ role: 'user', content: 'Hi' }],
          temperature: 0.7,
          top_p: 0.9,
        },
        ctx(),
      ),
    );
    const theirs = await sent(server, () =>
      sdk.messages.create({
        model: 'claude-haiku-4-5',
        max_tokens: 1024,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
        temperature: 0.7,
      }),
    );
    expectSameRequest(ours, theirs, headers);
  });

  it('streamed: the same body with stream: true', async () => {
    const body = { model: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 300 };
    const ours = await sent(server, async () => {
      for await (const _ of kasir.stream(body, ctx())) break;
    });
    const theirs = await sent(server, async () => {
      const stream = await sdk.messages.create({
        model: 'claude-haiku-4-5',
        max_tokens: 300,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
        stream: true,
      });
      for await (const _ of stream) break;
    });
    // The SDK asks for `accept: application/json` even when streaming; kasir asks for text/event-stream. Both
    // get the same event stream, so the header is not compared.
    expectSameRequest(ours, theirs, headers);
  });

  it('refuses a non-streamed call at the same max_tokens as the SDK (10 minutes at 128,000 tokens an hour)', async () => {
    const limit = maxNonStreamedTokens(600_000);
    expect(expectedAnswerMs(limit)).toBeLessThanOrEqual(600_000);
    expect(expectedAnswerMs(limit + 1)).toBeGreaterThan(600_000);
    const ask = (max_tokens: number) =>
      sdk.messages.create({
        model: 'claude-sonnet-4-5',
        max_tokens,
        messages: [{ role: 'user', content: 'Hi' }],
      });
    const count = server.requests.length;
    // The SDK throws before sending anything.
    await expect(async () => ask(limit + 1)).rejects.toThrow(/Streaming is required/);
    expect(server.requests.length).toBe(count);
    await ask(limit).catch(() => undefined);
    expect(server.requests.length).toBe(count + 1);
    // Claude Opus 4.1: the SDK's own cap of 8,192 tokens, whatever the wait.
    const opus = maxNonStreamedTokens(600_000, 'claude-opus-4-1-20250805');
    const askOpus = (max_tokens: number) =>
      sdk.messages.create({
        model: 'claude-opus-4-1-20250805',
        max_tokens,
        messages: [{ role: 'user', content: 'Hi' }],
      });
    await expect(async () => askOpus(opus + 1)).rejects.toThrow(/Streaming is required/);
    await askOpus(opus).catch(() => undefined);
    expect(server.requests.length).toBe(count + 2);
  });
});

describe('OpenAI-compatible (OpenAI, xAI, Groq, OpenRouter): kasir’s requests match the openai SDK’s', () => {
  let server: RecordingServer;
  const answers = loadRecording('xai-grok-4-reasoning').interactions;
  beforeAll(async () => {
    server = await startRecordingServer(answers);
  });
  afterAll(() => server.close());
  beforeEach(() => server.replay(answers));

  it.each(['xai', 'groq', 'openrouter', 'openai'])(
    '%s: a completion with tools, not streamed',
    async (name) => {
      const kasir = createOpenAiCompatibleProvider({
        name,
        baseUrl: `${server.url}/v1`,
        apiKey: KEY,
        timeoutMs: 5_000,
        pools,
      });
      const sdk = new OpenAI({ apiKey: KEY, baseURL: `${server.url}/v1`, maxRetries: 0 });
      const ours = await sent(server, () =>
        kasir.complete(
          {
            model: 'grok-4',
            messages: [{ role: 'user', content: 'Weather in Jakarta?' }],
            max_tokens: 200,
            temperature: 0.2,
            tools: [weatherTool],
            tool_choice: 'auto',
          },
          ctx(),
        ),
      );
      const theirs = await sent(server, () =>
        sdk.chat.completions.create({
          model: 'grok-4',
          messages: [{ role: 'user', content: 'Weather in Jakarta?' }],
          max_tokens: 200,
          temperature: 0.2,
          tools: [
            {
              type: 'function',
              function: {
                name: 'get_weather',
                description: 'Weather for a city',
                parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
              },
            },
          ],
          tool_choice: 'auto',
          stream: false,
        }),
      );
      expectSameRequest(ours, theirs, ['authorization', 'content-type']);
    },
  );

  it('streamed: stream with usage included, as the SDK asks for it', async () => {
    const kasir = createOpenAiCompatibleProvider({
      name: 'xai',
      baseUrl: `${server.url}/v1`,
      apiKey: KEY,
      timeoutMs: 5_000,
      pools,
    });
    const sdk = new OpenAI({ apiKey: KEY, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const ours = await sent(server, async () => {
      for await (const _ of kasir.stream(
        { model: 'grok-4', messages: [{ role: 'user', content: 'Hi' }] },
        ctx(),
      ))
        break;
    });
    const theirs = await sent(server, async () => {
      const stream = await sdk.chat.completions.create({
        model: 'grok-4',
        messages: [{ role: 'user', content: 'Hi' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      for await (const _ of stream) break;
    });
    expectSameRequest(ours, theirs, ['authorization', 'content-type']);
  });
});

describe('Gemini: kasir’s generateContent requests match @google/genai’s', () => {
  let server: RecordingServer;
  const answer: RecordedInteraction = {
    request: { method: 'POST', path: '/v1beta/models/gemini-2.5-flash:generateContent', body: null },
    response: {
      status: 200,
      contentType: 'application/json',
      body: {
        candidates: [{ content: { role: 'model', parts: [{ text: 'Hi' }] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 1, totalTokenCount: 4 },
        modelVersion: 'gemini-2.5-flash',
      },
    },
  };
  beforeAll(async () => {
    server = await startRecordingServer([answer]);
  });
  afterAll(() => server.close());
  beforeEach(() => server.replay([answer]));

  it('a completion with a system prompt, sampling, thinking budget, stop sequences and tools', async () => {
    const kasir = createGeminiProvider({ baseUrl: server.url, apiKey: KEY, timeoutMs: 5_000, pools });
    const sdk = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: server.url } });
    const ours = await sent(server, () =>
      kasir.complete(
        {
          model: 'gemini-2.5-flash',
          messages: [
            { role: 'system', content: 'Be brief.' },
            { role: 'user', content: 'Weather in Jakarta?' },
          ],
          max_tokens: 200,
          temperature: 0.2,
          top_p: 0.9,
          stop: ['END'],
          reasoning_effort: 'low',
          tools: [weatherTool],
        },
        ctx(),
      ),
    );
    const theirs = await sent(server, () =>
      sdk.models.generateContent({
        model: 'gemini-2.5-flash',
        contents: [{ role: 'user', parts: [{ text: 'Weather in Jakarta?' }] }],
        config: {
          systemInstruction: { parts: [{ text: 'Be brief.' }] },
          maxOutputTokens: 200,
          temperature: 0.2,
          topP: 0.9,
          stopSequences: ['END'],
          thinkingConfig: { thinkingBudget: 1024 },
          tools: [
            {
              functionDeclarations: [
                {
                  name: 'get_weather',
                  description: 'Weather for a city',
                  parametersJsonSchema: {
                    type: 'object',
                    properties: { city: { type: 'string' } },
                    required: ['city'],
                  },
                },
              ],
            },
          ],
        },
      }),
    );
    expectSameRequest(ours, theirs, ['x-goog-api-key', 'content-type']);
  });

  it('streamed: streamGenerateContent with alt=sse, the same body', async () => {
    const kasir = createGeminiProvider({ baseUrl: server.url, apiKey: KEY, timeoutMs: 5_000, pools });
    const sdk = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: server.url } });
    const ours = await sent(server, async () => {
      const body = { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 50 };
      for await (const _ of kasir.stream(body, ctx())) break;
    });
    const theirs = await sent(server, async () => {
      const stream = await sdk.models.generateContentStream({
        model: 'gemini-2.5-flash',
        contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
        config: { maxOutputTokens: 50 },
      });
      for await (const _ of stream) break;
    });
    expect(ours.path).toBe(theirs.path);
    expect(ours.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expectSameRequest(ours, theirs, ['x-goog-api-key', 'content-type']);
  });
});
