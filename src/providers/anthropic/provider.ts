/** Chat adapter for Anthropic's Messages API. */
import { deferredStream } from '../deferred-stream.js';
import type { UpstreamPools } from '../pools.js';
import type { ChatProvider } from '../types.js';
import { UpstreamClient } from '../upstream-client.js';
import { toAnthropicRequest } from './request.js';
import { fromAnthropicMessage } from './response.js';
import { translateAnthropicStream } from './stream.js';

export const ANTHROPIC_VERSION = '2023-06-01';

export interface AnthropicOptions {
  name?: string;
  /** Base URL without the API path, e.g. `https://api.anthropic.com`; `/v1/messages` is appended. */
  baseUrl: string;
  apiKey: string;
  /** Until a streamed answer starts. */
  timeoutMs: number;
  /** Between two events of a streamed answer (default `timeoutMs`). */
  idleTimeoutMs?: number;
  /** A whole non-streamed answer (default `timeoutMs`). */
  answerTimeoutMs?: number;
  pools: UpstreamPools;
}

export function createAnthropicProvider(options: AnthropicOptions): ChatProvider {
  const name = options.name ?? 'anthropic';
  const client = new UpstreamClient({
    provider: name,
    baseUrl: options.baseUrl,
    timeoutMs: options.timeoutMs,
    idleTimeoutMs: options.idleTimeoutMs,
    answerTimeoutMs: options.answerTimeoutMs,
    pools: options.pools,
    secret: options.apiKey,
  });
  const headers = { 'x-api-key': options.apiKey, 'anthropic-version': ANTHROPIC_VERSION };

  return {
    name,

    async complete(body, ctx) {
      const answer = await client.postJson('/v1/messages', toAnthropicRequest(body), headers, ctx.signal);
      return fromAnthropicMessage(answer, name, String(body.model));
    },

    stream(body, ctx) {
      return deferredStream(async () => {
        const request = { ...toAnthropicRequest(body), stream: true };
        const res = await client.openStream(
          '/v1/messages',
          request,
          { ...headers, accept: 'text/event-stream' },
          ctx.signal,
        );
        return { iterator: translateAnthropicStream(res, client, ctx.signal) };
      });
    },
  };
}
