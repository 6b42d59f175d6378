/** Maps Gemini API answers (candidates, finish reasons, usage metadata) to the common chat-completion format. */

import { UpstreamError } from '../../http/upstream-error.js';
import {
  type FinishReason,
  type JsonObject,
  newCompletionId,
  newToolCallId,
  nowSeconds,
  usageOf,
} from '../chat-format.js';
import type { ChatCompletion, ChatUsage } from '../types.js';

const FILTERED = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'LANGUAGE',
]);

/** STOP → stop (tool_calls when the candidate called a function), MAX_TOKENS → length, safety-type reasons → content_filter. */
export function finishReasonOf(reason: unknown, calledTools: boolean): FinishReason | null {
  if (reason === undefined || reason === null || reason === 'FINISH_REASON_UNSPECIFIED') return null;
  if (reason === 'MAX_TOKENS') return 'length';
  if (typeof reason === 'string' && FILTERED.has(reason)) return 'content_filter';
  return calledTools ? 'tool_calls' : 'stop';
}

/**
 * prompt_tokens = promptTokenCount (+ toolUsePromptTokenCount); completion_tokens = candidatesTokenCount +
 * thoughtsTokenCount, because thinking is billed as output; the thinking share is also reported as
 * `completion_tokens_details.reasoning_tokens`, cached input as `prompt_tokens_details.cached_tokens`.
 */
export function usageFromGemini(raw: unknown): ChatUsage | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const meta = raw as JsonObject;
  const count = (key: string) => (typeof meta[key] === 'number' ? (meta[key] as number) : 0);
  if (typeof meta.promptTokenCount !== 'number') return undefined;
  const thoughts = count('thoughtsTokenCount');
  return usageOf(
    count('promptTokenCount') + count('toolUsePromptTokenCount'),
    count('candidatesTokenCount') + thoughts,
    {
      prompt_tokens_details: { cached_tokens: count('cachedContentTokenCount') },
      completion_tokens_details: { reasoning_tokens: thoughts },
    },
  );
}

export interface CandidateParts {
  text: string;
  reasoning: string;
  toolCalls: ToolCall[];
}

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
  /** Gemini's thought signature, handed back by the caller with the call (see SKIP_THOUGHT_SIGNATURE). */
  extra_content?: { google: { thought_signature: string } };
}

/** Splits a candidate's parts into answer text, thought text (`thought: true`) and function calls. */
export function partsOf(candidate: JsonObject): CandidateParts {
  const content = (candidate.content ?? {}) as JsonObject;
  const parts = Array.isArray(content.parts) ? (content.parts as JsonObject[]) : [];
  const result: CandidateParts = { text: '', reasoning: '', toolCalls: [] };
  for (const part of parts) {
    if (typeof part.text === 'string') {
      if (part.thought === true) result.reasoning += part.text;
      else result.text += part.text;
    } else if (part.functionCall && typeof part.functionCall === 'object') {
      const call = part.functionCall as JsonObject;
      const toolCall: ToolCall = {
        id: typeof call.id === 'string' && call.id ? call.id : newToolCallId(),
        type: 'function',
        function: { name: String(call.name), arguments: JSON.stringify(call.args ?? {}) },
      };
      if (typeof part.thoughtSignature === 'string') {
        toolCall.extra_content = { google: { thought_signature: part.thoughtSignature } };
      }
      result.toolCalls.push(toolCall);
    }
  }
  return result;
}

/** A whole generateContent answer as a chat.completion; a prompt blocked before any candidate is a content_filter stop. */
export function fromGeminiResponse(
  answer: unknown,
  provider: string,
  requestedModel: string,
): ChatCompletion {
  const fail = (message: string) =>
    new UpstreamError('upstream', `${provider} ${message}`, { beforeFirstByte: true });
  if (!answer || typeof answer !== 'object') throw fail('answered with a non-object');
  const response = answer as JsonObject;
  const usage = usageFromGemini(response.usageMetadata);
  if (!usage) throw fail('answered without usage');
  const candidates = Array.isArray(response.candidates) ? (response.candidates as JsonObject[]) : [];
  const choices = candidates.map((candidate, i) => {
    const parts = partsOf(candidate);
    const message: JsonObject = { role: 'assistant', content: parts.text || null, refusal: null };
    if (parts.reasoning) message.reasoning_content = parts.reasoning;
    if (parts.toolCalls.length) message.tool_calls = parts.toolCalls;
    return {
      index: typeof candidate.index === 'number' ? candidate.index : i,
      message,
      logprobs: null,
      finish_reason: finishReasonOf(candidate.finishReason, parts.toolCalls.length > 0) ?? 'stop',
    };
  });
  if (choices.length === 0) {
    choices.push({
      index: 0,
      message: { role: 'assistant', content: null, refusal: null },
      logprobs: null,
      finish_reason: 'content_filter',
    });
  }
  return {
    id: typeof response.responseId === 'string' ? response.responseId : newCompletionId(),
    object: 'chat.completion',
    created: nowSeconds(),
    model: typeof response.modelVersion === 'string' ? response.modelVersion : requestedModel,
    choices,
    usage,
  };
}
