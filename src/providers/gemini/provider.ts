/** Chat adapter for the Google Gemini API (generateContent / streamGenerateContent). */
import type { JsonObject } from '../chat-format.js';
import { deferredStream } from '../deferred-stream.js';
import type { UpstreamPools } from '../pools.js';
import type { ChatProvider } from '../types.js';
import { UpstreamClient } from '../upstream-client.js';
import { geminiModelId, toGeminiRequest } from './request.js';
import { fromGeminiResponse } from './response.js';
import { translateGeminiStream } from './stream.js';

export interface GeminiOptions {
  name?: string;
  /** Base URL without the API version, e.g. `https://generativelanguage.googleapis.com`. */
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

/** Gemini reports a wrong key as 400 INVALID_ARGUMENT with reason API_KEY_INVALID, not as 401. */
export function isGeminiKeyFailure(status: number, errorBody: unknown): boolean {
  if (status !== 400 || !errorBody || typeof errorBody !== 'object') return false;
  const error = (errorBody as JsonObject).error as JsonObject | undefined;
  const details = Array.isArray(error?.details) ? (error.details as JsonObject[]) : [];
  return details.some((d) => d.reason === 'API_KEY_INVALID');
}

export function createGeminiProvider(options: GeminiOptions): ChatProvider {
  const name = options.name ?? 'google';
  const client = new UpstreamClient({
    provider: name,
    baseUrl: options.baseUrl,
    timeoutMs: options.timeoutMs,
    idleTimeoutMs: options.idleTimeoutMs,
    answerTimeoutMs: options.answerTimeoutMs,
    pools: options.pools,
    secret: options.apiKey,
    isCredentialFailure: isGeminiKeyFailure,
  });
  // The key goes in a header, never in the URL, so it cannot leak through a logged path.
  const headers = { 'x-goog-api-key': options.apiKey };
  const pathOf = (body: JsonObject, method: string) =>
    `/v1beta/models/${encodeURIComponent(geminiModelId(body))}:${method}`;

  return {
    name,

    async complete(body, ctx) {
      const answer = await client.postJson(
        pathOf(body, 'generateContent'),
        toGeminiRequest(body),
        headers,
        ctx.signal,
      );
      return fromGeminiResponse(answer, name, geminiModelId(body));
    },

    stream(body, ctx) {
      return deferredStream(async () => {
        const res = await client.openStream(
          `${pathOf(body, 'streamGenerateContent')}?alt=sse`,
          toGeminiRequest(body),
          { ...headers, accept: 'text/event-stream' },
          ctx.signal,
        );
        return { iterator: translateGeminiStream(res, client, geminiModelId(body), ctx.signal) };
      });
    },
  };
}
