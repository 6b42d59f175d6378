/** The provider port: how kasir talks to an upstream (its failures are http/upstream-error.ts). Knows nothing about money. */
import type { CallSignal } from '../http/call-signal.js';

/** Real token counts reported by the upstream, in the common chat wire format's names. */
export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  [extra: string]: unknown;
}

/** The common chat-completion response body (OpenAI wire format), as the upstream's answer maps to it. */
export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: unknown[];
  usage: ChatUsage;
  [extra: string]: unknown;
}

/** One piece of a streamed answer. */
export type ChatStreamEvent =
  /**
   * Complete SSE frames (`data: {chat.completion.chunk}\n\n`), one or more, in the common wire format, to
   * forward as they are. A relay may hand over everything one network read completed at once (one write
   * downstream rather than one per frame), but never holds a frame back for a later read.
   */
  | { type: 'frame'; bytes: Buffer }
  /** The upstream finished cleanly; carries the real usage and the ids to stamp on kasir's final chunk. */
  | { type: 'end'; usage: ChatUsage; id: string; model: string; created: number };

export interface CallContext {
  signal: CallSignal;
  requestId: string;
}

/**
 * An adapter for one upstream chat wire format. `body` is the validated common-format request with
 * `model` already replaced by the upstream's model id. Streams must yield frames as they arrive (never
 * buffer the whole answer) and end with exactly one `end` event, or throw an UpstreamError.
 */
export interface ChatProvider {
  readonly name: string;
  complete(body: Record<string, unknown>, ctx: CallContext): Promise<ChatCompletion>;
  stream(body: Record<string, unknown>, ctx: CallContext): AsyncIterable<ChatStreamEvent>;
}
