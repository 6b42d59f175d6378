/**
 * A fake Anthropic Messages API: a real HTTP server on 127.0.0.1 speaking POST /v1/messages, plain and
 * streamed (message_start, ping, content_block_start/delta/stop for thinking, text and tool_use blocks,
 * message_delta with stop_reason and usage, message_stop), with the provider's real error bodies. Like the
 * real API it requires `anthropic-version` and `max_tokens`, checks `x-api-key` when given a key, and refuses
 * what the real API refuses with a 400 (see `ruleBroken`: temperature with top_p, the extended-thinking rules,
 * a tool loop's assistant turn without its signed thinking block).
 *
 *   const fake = await startFakeAnthropic({ apiKey: 'sk-ant-test' });
 *   // configure ANTHROPIC_BASE_URL = fake.url, ANTHROPIC_API_KEY = 'sk-ant-test'
 *   fake.setScript({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Jakarta' } }] });
 *
 * Scripts and failure modes: see chat-upstream.ts (`no_usage` sends message_delta without usage, `no_done`
 * leaves out message_stop). The default answer echoes the image inputs it received.
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import {
  describeInline,
  earlyFailure,
  echoText,
  type FakeChatScript,
  type FakeUpstream,
  type FakeUpstreamOptions,
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

const ERROR_TYPES: Record<number, { type: string; message: string }> = {
  400: {
    type: 'invalid_request_error',
    message: 'messages: roles must alternate between "user" and "assistant"',
  },
  401: { type: 'authentication_error', message: 'invalid x-api-key' },
  403: {
    type: 'permission_error',
    message: 'Your API key does not have permission to use the specified resource.',
  },
  404: { type: 'not_found_error', message: 'model: claude-unknown' },
  413: { type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' },
  429: {
    type: 'rate_limit_error',
    message: 'Number of request tokens has exceeded your per-minute rate limit',
  },
  500: { type: 'api_error', message: 'Internal server error' },
  529: { type: 'overloaded_error', message: 'Overloaded' },
};

/** Anthropic's error body: { type: 'error', error: { type, message } }. */
export function anthropicErrorBody(status: number, message?: string): unknown {
  const known = ERROR_TYPES[status] ?? { type: 'api_error', message: `HTTP ${status}` };
  return { type: 'error', error: { type: known.type, message: message ?? known.message } };
}

const STOP_REASON = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
} as const;

export function startFakeAnthropic(options: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  return startFakeUpstream(options, '', async (request, script, res) => {
    if (request.method !== 'POST' || request.path !== '/v1/messages') {
      sendJson(res, 404, anthropicErrorBody(404, 'Not Found'), request);
      return;
    }
    if (options.apiKey !== undefined && request.headers['x-api-key'] !== options.apiKey) {
      sendJson(res, 401, anthropicErrorBody(401), request);
      return;
    }
    if (!request.headers['anthropic-version']) {
      sendJson(res, 400, anthropicErrorBody(400, 'anthropic-version: header is required'), request);
      return;
    }
    const body = request.body;
    if (typeof body.max_tokens !== 'number') {
      sendJson(res, 400, anthropicErrorBody(400, 'max_tokens: Field required'), request);
      return;
    }
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      sendJson(res, 400, anthropicErrorBody(400, 'messages: at least one message is required'), request);
      return;
    }
    const refused = ruleBroken(body);
    if (refused) {
      sendJson(res, 400, anthropicErrorBody(400, refused), request);
      return;
    }
    if (earlyFailure(script, res, request, anthropicErrorBody)) return;
    if (body.stream === true) await streamAnswer(request, script, res);
    else answer(request, script, res);
  });
}

/**
 * The fake's signature of a thinking text. The real one is opaque and verified by Anthropic; here it is a hash
 * of the text, so a thinking block handed back altered, or without its signature, is refused like the real API.
 */
export function fakeThinkingSignature(thinking: string): string {
  return createHash('sha256').update(thinking).digest('base64');
}

/**
 * The documented request rules the real API enforces with a 400 (messages shown as Anthropic words them):
 * temperature and top_p together; with thinking on, a budget of at least 1024 below max_tokens, no custom
 * temperature / top_k / low top_p, no forced tool, and the final assistant turn of a tool loop starting with
 * its signed thinking block.
 */
function ruleBroken(body: Record<string, unknown>): string | undefined {
  if (body.temperature !== undefined && body.top_p !== undefined)
    return '`temperature` and `top_p` cannot both be specified for this model. Please use only one.';
  const thinking = body.thinking as { type?: string; budget_tokens?: unknown } | undefined;
  const messages = body.messages as Array<{ role?: string; content?: unknown }>;
  for (const [i, message] of messages.entries()) {
    if (message.role !== 'assistant' || !Array.isArray(message.content)) continue;
    for (const [j, block] of (message.content as Array<Record<string, unknown>>).entries()) {
      if (block.type !== 'thinking') continue;
      if (typeof block.signature !== 'string')
        return `messages.${i}.content.${j}.thinking.signature: Field required`;
      if (block.signature !== fakeThinkingSignature(String(block.thinking)))
        return `messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`;
    }
  }
  if (thinking?.type !== 'enabled') return undefined;
  const budget = thinking.budget_tokens;
  if (typeof budget !== 'number' || budget < 1024)
    return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
  if (budget >= Number(body.max_tokens))
    return '`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size';
  if (body.temperature !== undefined && body.temperature !== 1)
    return '`temperature` may only be set to 1 when thinking is enabled. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility';
  if (body.top_k !== undefined) return '`top_k` must be unset when thinking is enabled.';
  if (typeof body.top_p === 'number' && body.top_p < 0.95)
    return '`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled.';
  const choice = (body.tool_choice as { type?: string } | undefined)?.type;
  if (choice === 'any' || choice === 'tool')
    return 'Thinking may not be enabled when tool_choice forces tool use.';
  const last = messages.at(-1);
  const assistantAt = messages.length - 2;
  const assistant = messages[assistantAt];
  const toolLoop =
    last?.role === 'user' &&
    Array.isArray(last.content) &&
    (last.content as Array<{ type?: string }>).some((b) => b.type === 'tool_result');
  if (toolLoop && assistant?.role === 'assistant' && Array.isArray(assistant.content)) {
    const first = (assistant.content as Array<{ type?: string }>)[0]?.type;
    if (first !== 'thinking' && first !== 'redacted_thinking')
      return `messages.${assistantAt}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`;
  }
  return undefined;
}

function usageBody(script: FakeChatScript): Record<string, number> {
  const usage = usageOf(script);
  return {
    input_tokens: usage.prompt - (usage.cacheRead ?? 0) - (usage.cacheWrite ?? 0),
    cache_creation_input_tokens: usage.cacheWrite ?? 0,
    cache_read_input_tokens: usage.cacheRead ?? 0,
    output_tokens: usage.completion,
  };
}

function answer(request: RecordedRequest, script: FakeChatScript, res: ServerResponse): void {
  const content: unknown[] = [];
  if (script.reasoning)
    content.push({
      type: 'thinking',
      thinking: script.reasoning,
      signature: fakeThinkingSignature(script.reasoning),
    });
  const text = textOf(request, script);
  if (text) content.push({ type: 'text', text });
  for (const [i, call] of (script.toolCalls ?? []).entries()) {
    content.push({
      type: 'tool_use',
      id: toolCallId('toolu_fake', call, i),
      name: call.name,
      input: call.arguments,
    });
  }
  const message: Record<string, unknown> = {
    id: 'msg_fake0001',
    type: 'message',
    role: 'assistant',
    model: request.body.model,
    content,
    stop_reason: STOP_REASON[finishOf(script)],
    stop_sequence: null,
  };
  if (script.failure?.kind !== 'no_usage') message.usage = usageBody(script);
  sendJson(res, 200, message, request);
}

async function streamAnswer(
  request: RecordedRequest,
  script: FakeChatScript,
  res: ServerResponse,
): Promise<void> {
  const event = (type: string, data: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const usage = usageBody(script);
  const pieces = script.events ?? 10;
  const events = [
    event('message_start', {
      message: {
        id: 'msg_fake0001',
        type: 'message',
        role: 'assistant',
        model: request.body.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    }),
    event('ping', {}),
  ];
  let index = 0;
  if (script.reasoning) {
    events.push(
      event('content_block_start', {
        index,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      }),
    );
    for (const piece of splitText(script.reasoning, pieces)) {
      events.push(
        event('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: piece } }),
      );
    }
    events.push(
      event('content_block_delta', {
        index,
        delta: { type: 'signature_delta', signature: fakeThinkingSignature(script.reasoning) },
      }),
    );
    events.push(event('content_block_stop', { index }));
    index++;
  }
  const text = textOf(request, script);
  if (text) {
    events.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
    for (const piece of splitText(text, pieces)) {
      events.push(event('content_block_delta', { index, delta: { type: 'text_delta', text: piece } }));
    }
    events.push(event('content_block_stop', { index }));
    index++;
  }
  for (const [i, call] of (script.toolCalls ?? []).entries()) {
    const id = toolCallId('toolu_fake', call, i);
    events.push(
      event('content_block_start', {
        index,
        content_block: { type: 'tool_use', id, name: call.name, input: {} },
      }),
    );
    const args = JSON.stringify(call.arguments);
    const half = Math.ceil(args.length / 2);
    events.push(
      event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } }),
    );
    events.push(
      event('content_block_delta', {
        index,
        delta: { type: 'input_json_delta', partial_json: args.slice(0, half) },
      }),
    );
    events.push(
      event('content_block_delta', {
        index,
        delta: { type: 'input_json_delta', partial_json: args.slice(half) },
      }),
    );
    events.push(event('content_block_stop', { index }));
    index++;
  }
  events.push(
    event('message_delta', {
      delta: { stop_reason: STOP_REASON[finishOf(script)], stop_sequence: null },
      ...(script.failure?.kind === 'no_usage' ? {} : { usage: { output_tokens: usage.output_tokens } }),
    }),
  );
  if (script.failure?.kind !== 'no_done') events.push(event('message_stop', {}));
  const message =
    script.failure?.kind === 'error_event' ? (script.failure.message ?? 'Overloaded') : 'Overloaded';
  const errorEvent = event('error', { error: { type: 'overloaded_error', message } });
  await playStream(res, request, script, events, errorEvent);
}

function textOf(request: RecordedRequest, script: FakeChatScript): string {
  return script.text ?? echoText('Anthropic', imagesOf(request.body.messages));
}

/** The image blocks of the request: URL sources as given, base64 sources as `<media type> inline`. */
function imagesOf(messages: unknown): string[] {
  const images: string[] = [];
  for (const message of Array.isArray(messages) ? (messages as Array<{ content?: unknown }>) : []) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as Array<{ type?: string; source?: Record<string, string> }>) {
      if (block.type !== 'image' || !block.source) continue;
      images.push(
        block.source.type === 'url'
          ? String(block.source.url)
          : describeInline(String(block.source.media_type)),
      );
    }
  }
  return images;
}
