/** Maps an Anthropic Messages API answer (message, stop reason, usage) to the common chat-completion format. */

import { UpstreamError } from '../../http/upstream-error.js';
import { type FinishReason, type JsonObject, newCompletionId, nowSeconds, usageOf } from '../chat-format.js';
import { ANTHROPIC_REASONING_FORMAT, type ReasoningDetail } from '../reasoning-details.js';
import type { ChatCompletion, ChatUsage } from '../types.js';

/** end_turn/stop_sequence/pause_turn → stop, max_tokens → length, tool_use → tool_calls, refusal → content_filter. */
export function finishReasonOf(stopReason: unknown): FinishReason | null {
  switch (stopReason) {
    case 'end_turn':
    case 'stop_sequence':
    case 'pause_turn':
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    case null:
    case undefined:
      return null;
    default:
      return 'stop';
  }
}

/**
 * prompt_tokens = input_tokens + cache writes + cache reads (Anthropic counts them apart; all three are
 * input), completion_tokens = output_tokens (thinking included). The cache split is kept in
 * `prompt_tokens_details` because the two are priced differently.
 */
export function usageFromAnthropic(raw: unknown): ChatUsage | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const usage = raw as JsonObject;
  const input = usage.input_tokens;
  const output = usage.output_tokens;
  if (typeof input !== 'number' || typeof output !== 'number') return undefined;
  const cacheWrite =
    typeof usage.cache_creation_input_tokens === 'number' ? usage.cache_creation_input_tokens : 0;
  const cacheRead = typeof usage.cache_read_input_tokens === 'number' ? usage.cache_read_input_tokens : 0;
  return usageOf(input + cacheWrite + cacheRead, output, {
    prompt_tokens_details: { cached_tokens: cacheRead, cache_creation_tokens: cacheWrite },
  });
}

/**
 * Text blocks are joined into `message.content`, `tool_use` blocks become `tool_calls` (arguments as a
 * JSON text), thinking text goes to `reasoning_content` (the field DeepSeek and vLLM use), and thinking and
 * redacted_thinking blocks, with their signatures, to `reasoning_details` (see reasoning-details.ts), for the
 * caller to hand back on the next turn; other blocks (server tools) are left out.
 */
export function fromAnthropicMessage(
  answer: unknown,
  provider: string,
  requestedModel: string,
): ChatCompletion {
  const fail = (message: string) =>
    new UpstreamError('upstream', `${provider} ${message}`, { beforeFirstByte: true });
  if (!answer || typeof answer !== 'object') throw fail('answered with a non-object');
  const message = answer as JsonObject;
  if (!Array.isArray(message.content)) throw fail('answered without content');
  const usage = usageFromAnthropic(message.usage);
  if (!usage) throw fail('answered without usage');

  const texts: string[] = [];
  const thinking: string[] = [];
  const details: ReasoningDetail[] = [];
  const toolCalls: JsonObject[] = [];
  for (const block of message.content as JsonObject[]) {
    if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
    else if (block.type === 'thinking' && typeof block.thinking === 'string') {
      thinking.push(block.thinking);
      details.push({
        type: 'reasoning.text',
        text: block.thinking,
        ...(typeof block.signature === 'string' ? { signature: block.signature } : {}),
        format: ANTHROPIC_REASONING_FORMAT,
        index: details.length,
      });
    } else if (block.type === 'redacted_thinking' && typeof block.data === 'string') {
      details.push({
        type: 'reasoning.encrypted',
        data: block.data,
        format: ANTHROPIC_REASONING_FORMAT,
        index: details.length,
      });
    } else if (block.type === 'tool_use') {
      toolCalls.push({
        id: block.id,
        type: 'function',
        function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
      });
    }
  }
  const assistant: JsonObject = {
    role: 'assistant',
    content: texts.length ? texts.join('') : null,
    refusal: null,
  };
  if (thinking.length) assistant.reasoning_content = thinking.join('');
  if (details.length) assistant.reasoning_details = details;
  if (toolCalls.length) assistant.tool_calls = toolCalls;
  return {
    id: typeof message.id === 'string' ? message.id : newCompletionId(),
    object: 'chat.completion',
    created: nowSeconds(),
    model: typeof message.model === 'string' ? message.model : requestedModel,
    choices: [
      { index: 0, message: assistant, logprobs: null, finish_reason: finishReasonOf(message.stop_reason) },
    ],
    usage,
  };
}
