/** Chat adapter for upstreams that speak the OpenAI wire format: OpenAI, OpenRouter, Together, Groq, DeepSeek, xAI, Ollama, vLLM. */

import { UpstreamError } from '../../http/upstream-error.js';
import { type JsonObject, newCompletionId, nowSeconds } from '../chat-format.js';
import { deferredStream } from '../deferred-stream.js';
import type { UpstreamPools } from '../pools.js';
import type { ChatCompletion, ChatProvider } from '../types.js';
import { UpstreamClient } from '../upstream-client.js';
import { relayOpenAiStream, usageFrom } from './stream.js';

export interface OpenAiCompatibleOptions {
  /** Provider name (`openai`, `groq`, …). */
  name: string;
  /** Base URL up to the API version, e.g. `https://api.openai.com/v1`; `/chat/completions` is appended. */
  baseUrl: string;
  /** Sent as a bearer token; local servers (Ollama, vLLM) run without one. */
  apiKey: string | undefined;
  /** Until a streamed answer starts. */
  timeoutMs: number;
  /** Between two events of a streamed answer (default `timeoutMs`). */
  idleTimeoutMs?: number;
  /** A whole non-streamed answer (default `timeoutMs`). */
  answerTimeoutMs?: number;
  pools: UpstreamPools;
}

/**
 * The request body goes upstream as given (unknown fields included, `max_tokens` or
 * `max_completion_tokens` as the caller named it); only `stream` and `stream_options` are set, so streams
 * always report usage.
 */
export function createOpenAiCompatibleProvider(options: OpenAiCompatibleOptions): ChatProvider {
  const client = new UpstreamClient({
    provider: options.name,
    baseUrl: options.baseUrl,
    timeoutMs: options.timeoutMs,
    idleTimeoutMs: options.idleTimeoutMs,
    answerTimeoutMs: options.answerTimeoutMs,
    pools: options.pools,
    secret: options.apiKey,
  });
  const headers: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
  const streamHeaders = { ...headers, accept: 'text/event-stream' };

  return {
    name: options.name,

    async complete(body, ctx) {
      // A copy without the stream's options, built with Object.assign (see stream() below); deleting a key turns
      // an object into a slower kind, so only a body that has them loses them.
      const request: Record<string, unknown> = Object.assign({}, body);
      if ('stream_options' in request) delete request.stream_options;
      request.stream = false;
      const answer = await client.postJson('/chat/completions', request, headers, ctx.signal);
      return completionOf(answer, options.name, String(body.model));
    },

    stream(body, ctx) {
      return deferredStream(async () => {
        const streamOptions =
          body.stream_options && typeof body.stream_options === 'object' ? body.stream_options : {};
        // Object.assign rather than a spread with more keys after it, which V8 builds one key at a time.
        const request = Object.assign({}, body, {
          stream: true,
          stream_options: { ...streamOptions, include_usage: true },
        });
        const res = await client.openStream('/chat/completions', request, streamHeaders, ctx.signal);
        return { iterator: relayOpenAiStream(res, client, String(body.model), ctx.signal) };
      });
    },
  };
}

/** Checks an upstream answer is a chat completion with real usage; fills the ids some local servers omit. */
function completionOf(answer: unknown, provider: string, requestedModel: string): ChatCompletion {
  const fail = (message: string) =>
    new UpstreamError('upstream', `${provider} ${message}`, { beforeFirstByte: true });
  if (!answer || typeof answer !== 'object' || Array.isArray(answer))
    throw fail('answered with a non-object');
  const completion = answer as JsonObject;
  if (completion.error && typeof completion.error === 'object') {
    const message = (completion.error as JsonObject).message;
    throw fail(
      `answered with an error: ${typeof message === 'string' ? message.slice(0, 500) : 'no details'}`,
    );
  }
  if (!Array.isArray(completion.choices)) throw fail('answered without choices');
  const usage = usageFrom(completion.usage);
  if (!usage) throw fail('answered without usage');
  return {
    ...completion,
    id: typeof completion.id === 'string' ? completion.id : newCompletionId(),
    object: 'chat.completion',
    created: typeof completion.created === 'number' ? completion.created : nowSeconds(),
    model: typeof completion.model === 'string' ? completion.model : requestedModel,
    choices: completion.choices,
    usage,
  };
}
