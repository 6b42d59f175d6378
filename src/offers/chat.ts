/** The chat offer: runs a chat-category model through its provider targets (primary, then fallbacks). */
import { outputTokenCeiling } from '../catalog/chat-tokens.js';
import type { ModelEntry } from '../catalog/types.js';
import type { CostStamp, Offer } from '../checkout/offer.js';
import { ApiError, invalidInput } from '../http/errors.js';
import { maxNonStreamedTokens } from '../providers/anthropic/long-calls.js';
import type { ChatTarget } from '../providers/chat-router.js';
import type { ChatRuntime } from '../providers/chat-runtime.js';
import {
  CHAT_WIRE_FORMAT,
  chatModelAvailable,
  chatTargets,
  isChatProviderName,
  missingSettingOf,
} from '../providers/registry.js';
import type { ChatStreamEvent } from '../providers/types.js';
import { chatOutputMeter } from './chat-meter.js';

/**
 * The refusal of a non-streamed call that cannot finish within the wait for a whole answer: on Claude, whose
 * SDK refuses the same calls (see long-calls.ts). Other providers' answers have no such estimate.
 */
function longCallRefusal(
  entry: ModelEntry,
  input: Record<string, unknown>,
  callMs: number,
): ApiError | undefined {
  if (input.stream === true || !isChatProviderName(entry.upstream.provider)) return undefined;
  if (CHAT_WIRE_FORMAT[entry.upstream.provider] !== 'anthropic') return undefined;
  const maxTokens = outputTokenCeiling(input);
  const limit = maxNonStreamedTokens(callMs, entry.upstream.endpoint);
  if (maxTokens <= limit) return undefined;
  const field = input.max_completion_tokens !== undefined ? 'max_completion_tokens' : 'max_tokens';
  return invalidInput([
    {
      field,
      message: `a non-streamed answer of up to ${maxTokens} tokens may take longer than this server waits (${Math.round(callMs / 1000)} s); send "stream": true, or ask for at most ${limit} tokens`,
    },
  ]);
}

/**
 * Builds the final chunk kasir adds to every stream: real usage from the upstream, plus the settled cost and
 * the rail's receipt, in the chat-chunk format (`choices: []`, as the usage chunk of the common format).
 */
function closingFrame(
  end: Extract<ChatStreamEvent, { type: 'end' }>,
  modelId: string,
  stamp: CostStamp,
): Buffer {
  const chunk = {
    id: end.id,
    object: 'chat.completion.chunk',
    created: end.created,
    model: modelId,
    choices: [],
    usage: end.usage,
    costMicroUsd: stamp.costMicroUsd,
    receipt: stamp.receipt,
  };
  return Buffer.from(`data: ${JSON.stringify(chunk)}\n\n`);
}

/**
 * The body sent upstream: the caller's, with the output limit stated explicitly in the field the model reads.
 * The quote assumed that ceiling (1024 when the caller gave none), so the upstream must never produce more.
 */
export function upstreamBody(entry: ModelEntry, input: Record<string, unknown>): Record<string, unknown> {
  // Copied key by key: a rest spread followed by a computed key is built by V8 one key at a time, every call.
  const body: Record<string, unknown> = {};
  for (const key of Object.keys(input)) {
    if (key !== 'max_tokens' && key !== 'max_completion_tokens') body[key] = input[key];
  }
  body[entry.chat?.outputLimitField ?? 'max_tokens'] = outputTokenCeiling(input);
  return body;
}

export function createChatOffer(entry: ModelEntry, chat: ChatRuntime): Offer {
  // Providers are configured at start-up, so the targets are worked out once, on the first call.
  let configured: ChatTarget[] | undefined;
  const targets = (): ChatTarget[] => {
    configured ??= chatTargets(entry).flatMap((t) => {
      const provider = chat.providers.get(t.provider);
      return provider && chat.providers.isConfigured(t.provider) ? [{ provider, model: t.endpoint }] : [];
    });
    return configured;
  };

  return {
    entry,
    preflight(input) {
      const tooLong = longCallRefusal(entry, input, chat.callTimeoutMs ?? 600_000);
      if (tooLong) throw tooLong;
      if (chatModelAvailable(entry, chat.providers)) return;
      const missing = chatTargets(entry)
        .map((t) =>
          isChatProviderName(t.provider) ? missingSettingOf(t.provider) : `a ${t.provider} provider`,
        )
        .join(' or ');
      throw new ApiError(
        'not_configured',
        `model ${entry.id} is not available on this server: it needs ${missing}`,
        {
          model: entry.id,
        },
      );
    },
    metersStream: (input) => input.stream === true,
    async run(input, ctx) {
      const call = { signal: ctx.signal, requestId: ctx.requestId };
      const body = upstreamBody(entry, input);
      if (input.stream === true) {
        return {
          kind: 'stream',
          events: chat.router.stream(targets(), body, call),
          closingFrames: (end, stamp) =>
            closingFrame(end as Extract<ChatStreamEvent, { type: 'end' }>, entry.id, stamp),
          meter: chatOutputMeter(entry.id, input),
        };
      }
      const completion = await chat.router.complete(targets(), body, call);
      return { kind: 'json', body: completion };
    },
  };
}
