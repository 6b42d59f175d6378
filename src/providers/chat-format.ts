/** The common (OpenAI) chat wire format as adapters read it, and the chunk frames they write in it. */
import { randomBytes } from 'node:crypto';
import { UpstreamError } from '../http/upstream-error.js';
import type { ChatUsage } from './types.js';

export type JsonObject = Record<string, unknown>;

export interface CommonToolCall {
  id: string;
  type?: 'function';
  function: { name: string; arguments: string };
}

export type CommonContentPart =
  | { type: 'text'; text: string; [extra: string]: unknown }
  | { type: 'image_url'; image_url: { url: string; detail?: string }; [extra: string]: unknown }
  | { type: 'input_audio'; input_audio: { data: string; format: string } }
  | { type: 'file'; file: { file_data?: string; file_id?: string; filename?: string } }
  | { type: string; [extra: string]: unknown };

export interface CommonMessage {
  role: string;
  content?: string | CommonContentPart[] | null;
  tool_calls?: CommonToolCall[];
  tool_call_id?: string;
  name?: string;
}

export interface CommonTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: JsonObject; strict?: boolean };
}

export type CommonToolChoice =
  | 'auto'
  | 'none'
  | 'required'
  | { type: 'function'; function: { name: string } };

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

/** The caller's input cannot be expressed in the upstream's format: refused before anything is sent. */
export function unsupportedInput(message: string): UpstreamError {
  return new UpstreamError('bad_request', message, { beforeFirstByte: true, upstreamMessage: message });
}

export function messagesOf(body: JsonObject): CommonMessage[] {
  if (!Array.isArray(body.messages)) throw unsupportedInput('messages must be an array');
  return body.messages as CommonMessage[];
}

/** The text of a message's content (string, or the text parts of an array); non-text parts are refused. */
export function textOf(content: CommonMessage['content'], role: string): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part) => {
      if (part.type === 'text' && typeof part.text === 'string') return part.text;
      throw unsupportedInput(`${role} messages may only contain text parts, not "${part.type}"`);
    })
    .join('\n');
}

export interface DataUrl {
  mediaType: string;
  base64: string;
}

/** Splits a `data:<type>;base64,<data>` URL; undefined when `url` is not a data URL. */
export function parseDataUrl(url: string): DataUrl | undefined {
  if (!url.startsWith('data:')) return undefined;
  const match = /^data:([^;,]*)((?:;[^;,]*)*?);base64,(.*)$/s.exec(url);
  if (!match) throw unsupportedInput('data URLs must be base64-encoded (data:<type>;base64,<data>)');
  return { mediaType: match[1] || 'application/octet-stream', base64: match[3] ?? '' };
}

export function isHttpUrl(url: string): boolean {
  return url.startsWith('https://') || url.startsWith('http://');
}

/** Parses a tool call's `arguments` (a JSON text of an object); malformed arguments are the caller's input. */
export function parseToolArguments(call: CommonToolCall): JsonObject {
  const text = call.function.arguments;
  if (text === undefined || text.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as JsonObject;
  } catch {
    // refused below
  }
  throw unsupportedInput(`tool call ${call.id}: arguments must be a JSON object`);
}

/** `max_completion_tokens` (newer name) or `max_tokens`, whichever the caller gave. */
export function maxTokensOf(body: JsonObject): number | undefined {
  const value = body.max_completion_tokens ?? body.max_tokens;
  return typeof value === 'number' ? value : undefined;
}

export function stopSequencesOf(body: JsonObject): string[] | undefined {
  if (typeof body.stop === 'string') return [body.stop];
  if (Array.isArray(body.stop)) return body.stop.filter((s): s is string => typeof s === 'string');
  return undefined;
}

export function reasoningEffortOf(body: JsonObject): string | undefined {
  return typeof body.reasoning_effort === 'string' ? body.reasoning_effort : undefined;
}

export function newCompletionId(): string {
  return `chatcmpl-${randomBytes(12).toString('hex')}`;
}

export function newToolCallId(): string {
  return `call_${randomBytes(12).toString('hex')}`;
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

export function usageOf(prompt: number, completion: number, extra: JsonObject = {}): ChatUsage {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    ...extra,
  };
}

/** The identity stamped on every chunk of one streamed answer. */
export interface ChunkIdentity {
  id: string;
  created: number;
  model: string;
}

export interface ChunkDelta {
  role?: 'assistant';
  content?: string;
  reasoning_content?: string;
  /** Signed reasoning pieces (see reasoning-details.ts). */
  reasoning_details?: JsonObject[];
  tool_calls?: Array<{
    index: number;
    id?: string;
    type?: 'function';
    function: { name?: string; arguments: string };
    /** Provider-specific data a caller must hand back with the call (Gemini's thought signature). */
    extra_content?: JsonObject;
  }>;
}

/** One `data: {chat.completion.chunk}\n\n` frame with a single choice. */
export function chunkFrame(
  identity: ChunkIdentity,
  delta: ChunkDelta,
  finishReason: FinishReason | null = null,
  index = 0,
): Buffer {
  const chunk = {
    id: identity.id,
    object: 'chat.completion.chunk',
    created: identity.created,
    model: identity.model,
    choices: [{ index, delta, logprobs: null, finish_reason: finishReason }],
  };
  return Buffer.from(`data: ${JSON.stringify(chunk)}\n\n`);
}
