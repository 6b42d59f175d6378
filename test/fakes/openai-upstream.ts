/**
 * A fake OpenAI-compatible chat upstream: a real HTTP server on 127.0.0.1 speaking POST /v1/chat/completions,
 * plain and streamed (chat.completion.chunk frames, the usage-only final chunk when
 * `stream_options.include_usage` is set, `data: [DONE]`), with tool calls, reasoning_content and the
 * provider's real error bodies. It refuses what the real API refuses: `max_tokens` or a custom temperature on
 * OpenAI's reasoning models; in xAI's dialect (`dialect: 'xai'`), the fields xAI's reasoning models refuse.
 *
 *   const fake = await startFakeOpenAI({ apiKey: 'sk-test' });
 *   // configure OPENAI_BASE_URL = fake.url (it ends in /v1), OPENAI_API_KEY = 'sk-test'
 *   fake.setScript({ text: 'Hi there', events: 10, delayMs: 5 });
 *   ... fake.requests[0].body.messages ...
 *   await fake.close();
 *
 * Scripts and failure modes: see chat-upstream.ts. The default answer echoes the image inputs it received.
 */
import type { ServerResponse } from 'node:http';
import {
  describeInline,
  earlyFailure,
  echoText,
  type FakeChatScript,
  type FakeUpstream,
  type FakeUpstreamOptions,
  type FakeUsage,
  finishOf,
  playStream,
  type RecordedRequest,
  sendJson,
  splitText,
  startFakeUpstream,
  toolCallId,
  usageOf,
} from './chat-upstream.js';

export type { FakeChatScript, FakeUpstream, FakeUpstreamOptions, RecordedRequest } from './chat-upstream.js';

const ERROR_TYPES: Record<number, { type: string; code: string | null; message: string }> = {
  400: {
    type: 'invalid_request_error',
    code: null,
    message: "Invalid value for 'messages': the request is malformed.",
  },
  401: { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided.' },
  403: {
    type: 'invalid_request_error',
    code: 'unsupported_country_region_territory',
    message: 'Country, region, or territory not supported',
  },
  404: {
    type: 'invalid_request_error',
    code: 'model_not_found',
    message: 'The model does not exist or you do not have access to it.',
  },
  429: {
    type: 'requests',
    code: 'rate_limit_exceeded',
    message: 'Rate limit reached for requests. Please try again in 20ms.',
  },
  500: {
    type: 'server_error',
    code: null,
    message: 'The server had an error while processing your request. Sorry about that!',
  },
  503: {
    type: 'server_error',
    code: null,
    message: 'The engine is currently overloaded, please try again later.',
  },
};

/** OpenAI's error body: { error: { message, type, param, code } }. */
export function openAiErrorBody(status: number, message?: string): unknown {
  const known = ERROR_TYPES[status] ?? { type: 'server_error', code: null, message: `HTTP ${status}` };
  return { error: { message: message ?? known.message, type: known.type, param: null, code: known.code } };
}

/** What an OpenAI-compatible server adds: its GET /v1/models body, and its answer to a model it does not serve. */
export interface ModelListOptions {
  /** The body of GET /v1/models, in the server's own format. */
  modelList?: unknown;
  /** When set, a chat call naming another model gets `unknownModel(model)` (the server's own 404). */
  served?: string[];
  unknownModel?: (model: string) => { status: number; body: unknown };
}

export function startFakeOpenAI(options: FakeUpstreamOptions & ModelListOptions = {}): Promise<FakeUpstream> {
  return startFakeUpstream(options, '/v1', async (request, script, res) => {
    if (request.method === 'GET' && request.path === '/v1/models' && options.modelList !== undefined) {
      sendJson(res, 200, options.modelList, request);
      return;
    }
    const asked = String(request.body.model ?? '');
    if (options.served && request.method === 'POST' && !options.served.includes(asked)) {
      const refusal = options.unknownModel?.(asked) ?? { status: 404, body: openAiErrorBody(404) };
      sendJson(res, refusal.status, refusal.body, request);
      return;
    }
    if (request.method !== 'POST' || !request.path.startsWith('/v1/chat/completions')) {
      sendJson(
        res,
        404,
        openAiErrorBody(404, `Unknown request URL: ${request.method} ${request.path}.`),
        request,
      );
      return;
    }
    if (options.apiKey !== undefined && request.headers.authorization !== `Bearer ${options.apiKey}`) {
      // The real service echoes (part of) the key it was given; kasir must never pass that on.
      const given = String(request.headers.authorization ?? '').replace(/^Bearer /, '');
      sendJson(res, 401, openAiErrorBody(401, `Incorrect API key provided: ${given}.`), request);
      return;
    }
    const body = request.body;
    if (typeof body.model !== 'string' || !Array.isArray(body.messages)) {
      sendJson(res, 400, openAiErrorBody(400, "'model' and 'messages' are required properties"), request);
      return;
    }
    const refused = options.dialect === 'xai' ? xaiRefusal(body) : openAiRefusal(body);
    if (typeof refused === 'string') {
      sendJson(res, 400, { code: 'Client specified an invalid argument', error: refused }, request);
      return;
    }
    if (refused) {
      const error = {
        message: refused.message,
        type: 'invalid_request_error',
        param: refused.param,
        code: 'unsupported_parameter',
      };
      sendJson(res, 400, { error }, request);
      return;
    }
    if (earlyFailure(script, res, request, openAiErrorBody)) return;
    const usage = (script: FakeChatScript) =>
      options.dialect === 'xai' ? xaiUsageBody(usageOf(script)) : usageBody(usageOf(script));
    if (body.stream === true) await streamAnswer(request, script, res, usage);
    else answer(request, script, res, usage);
  });
}

const CREATED = 1_767_225_600;

type UsageRender = (script: FakeChatScript) => Record<string, unknown>;

/**
 * OpenAI's reasoning models (o-series, gpt-5 family) refuse `max_tokens` (they take `max_completion_tokens`) and a
 * temperature other than the default, with these messages.
 */
function openAiRefusal(body: Record<string, unknown>): { message: string; param: string } | undefined {
  if (!/^(o\d|gpt-5)/.test(String(body.model))) return undefined;
  if (body.max_tokens !== undefined)
    return {
      param: 'max_tokens',
      message:
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
    };
  if (body.temperature !== undefined && body.temperature !== 1)
    return {
      param: 'temperature',
      message: `Unsupported value: 'temperature' does not support ${String(body.temperature)} with this model. Only the default (1) value is supported.`,
    };
  return undefined;
}

/** xAI reasoning models (grok-4 family, grok-3-mini): the parameters they refuse, as xAI's reasoning guide lists. */
function xaiRefusal(body: Record<string, unknown>): string | undefined {
  const model = String(body.model);
  if (!/^grok-(4|3-mini)/.test(model)) return undefined;
  for (const field of ['stop', 'presence_penalty', 'frequency_penalty']) {
    if (body[field] !== undefined && body[field] !== null)
      return `Argument not supported on this model: ${field}`;
  }
  if (body.reasoning_effort !== undefined && !model.startsWith('grok-3-mini'))
    return `Model ${model} does not support parameter reasoningEffort.`;
  return undefined;
}

function answer(
  request: RecordedRequest,
  script: FakeChatScript,
  res: ServerResponse,
  renderUsage: UsageRender,
): void {
  const body = request.body;
  const toolCalls = (script.toolCalls ?? []).map((call, i) => ({
    id: toolCallId('call_fake', call, i),
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: textOf(request, script),
    refusal: null,
  };
  if (script.reasoning) message.reasoning_content = script.reasoning;
  if (toolCalls.length) message.tool_calls = toolCalls;
  const n = typeof body.n === 'number' ? body.n : 1;
  const completion: Record<string, unknown> = {
    id: 'chatcmpl-fake0001',
    object: 'chat.completion',
    created: CREATED,
    model: body.model,
    choices: Array.from({ length: n }, (_, index) => ({
      index,
      message,
      logprobs: null,
      finish_reason: finishOf(script),
    })),
    system_fingerprint: 'fp_fake',
  };
  if (script.failure?.kind !== 'no_usage') completion.usage = renderUsage(script);
  sendJson(res, 200, completion, request);
}

async function streamAnswer(
  request: RecordedRequest,
  script: FakeChatScript,
  res: ServerResponse,
  renderUsage: UsageRender,
): Promise<void> {
  const body = request.body;
  const includeUsage =
    (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
  const wantsUsage = includeUsage && script.failure?.kind !== 'no_usage';
  const base = {
    id: 'chatcmpl-fake0001',
    object: 'chat.completion.chunk',
    created: CREATED,
    model: body.model,
    system_fingerprint: 'fp_fake',
  };
  // With include_usage, OpenAI puts "usage": null on every chunk but the last.
  const chunk = (delta: Record<string, unknown>, finish: string | null = null, usage: unknown = null) =>
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...(includeUsage ? { usage } : {}) })}\n\n`;

  const events = [chunk({ role: 'assistant', content: '', refusal: null })];
  for (const piece of splitText(script.reasoning ?? '', script.events ?? 10))
    events.push(chunk({ reasoning_content: piece }));
  for (const piece of splitText(textOf(request, script), script.events ?? 10))
    events.push(chunk({ content: piece }));
  for (const [index, call] of (script.toolCalls ?? []).entries()) {
    const args = JSON.stringify(call.arguments);
    const half = Math.ceil(args.length / 2);
    events.push(
      chunk({
        tool_calls: [
          {
            index,
            id: toolCallId('call_fake', call, index),
            type: 'function',
            function: { name: call.name, arguments: '' },
          },
        ],
      }),
      chunk({ tool_calls: [{ index, function: { arguments: args.slice(0, half) } }] }),
      chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }),
    );
  }
  const usage = renderUsage(script);
  if (wantsUsage && script.usageOnFinishChunk) {
    events.push(chunk({}, finishOf(script), usage));
  } else {
    events.push(chunk({}, finishOf(script)));
    if (wantsUsage) events.push(`data: ${JSON.stringify({ ...base, choices: [], usage })}\n\n`);
  }
  if (script.failure?.kind !== 'no_done') events.push('data: [DONE]\n\n');
  const message = script.failure?.kind === 'error_event' ? script.failure.message : undefined;
  const errorEvent = `data: ${JSON.stringify(openAiErrorBody(500, message))}\n\n`;
  await playStream(res, request, script, events, errorEvent);
}

function usageBody(usage: FakeUsage): Record<string, unknown> {
  return {
    prompt_tokens: usage.prompt,
    completion_tokens: usage.completion,
    total_tokens: usage.prompt + usage.completion,
    prompt_tokens_details: { cached_tokens: usage.cacheRead ?? 0 },
    completion_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 },
  };
}

function textOf(request: RecordedRequest, script: FakeChatScript): string {
  if (script.text !== undefined) return script.text;
  // Structured output: the reply is always an instance of the schema (a strict-mode model cannot do otherwise).
  const format = request.body.response_format as
    | { type?: string; json_schema?: { schema?: unknown } }
    | undefined;
  if (format?.type === 'json_schema') return JSON.stringify(leastInstanceOf(format.json_schema?.schema));
  return echoText('OpenAI', imagesOf(request.body.messages));
}

/** The plainest value a JSON schema allows: null where it may be null, else empty or zero; every property set. */
function leastInstanceOf(schema: unknown): unknown {
  const s = (schema ?? {}) as {
    type?: string | string[];
    properties?: Record<string, unknown>;
    enum?: unknown[];
  };
  if (s.enum) return s.enum[0];
  const types = Array.isArray(s.type) ? s.type : [s.type];
  if (types.includes('null')) return null;
  switch (types[0]) {
    case 'object':
      return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, leastInstanceOf(v)]));
    case 'array':
      return [];
    case 'string':
      return '';
    case 'number':
    case 'integer':
      return 0;
    case 'boolean':
      return false;
    default:
      return null;
  }
}

/** The images in the request's content parts: URLs as given, data URLs as `<type> inline`. */
function imagesOf(messages: unknown): string[] {
  const images: string[] = [];
  for (const message of Array.isArray(messages) ? (messages as Array<{ content?: unknown }>) : []) {
    if (!Array.isArray(message.content)) continue;
    for (const part of message.content as Array<{ type?: string; image_url?: { url?: string } }>) {
      const url = part.type === 'image_url' ? part.image_url?.url : undefined;
      if (!url) continue;
      images.push(url.startsWith('data:') ? describeInline(url.slice(5, url.indexOf(';'))) : url);
    }
  }
  return images;
}

/** xAI's usage: `completion_tokens` is the visible answer only, reasoning counted apart and added to the total. */
function xaiUsageBody(usage: FakeUsage): Record<string, unknown> {
  const reasoning = usage.reasoning ?? 0;
  return {
    prompt_tokens: usage.prompt,
    completion_tokens: usage.completion - reasoning,
    total_tokens: usage.prompt + usage.completion,
    prompt_tokens_details: { text_tokens: usage.prompt, cached_tokens: usage.cacheRead ?? 0 },
    completion_tokens_details: { reasoning_tokens: reasoning },
    num_sources_used: 0,
  };
}
