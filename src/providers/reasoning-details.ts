/**
 * Signed reasoning in the common format, as OpenRouter's `reasoning_details` convention spells it: an assistant
 * message (or a stream delta) carries `reasoning_details`, a list of pieces a caller hands back unchanged on the
 * assistant message of the next turn, so a provider that signs its reasoning (Claude's thinking blocks) can
 * verify it. Streamed pieces with the same `index` are parts of one piece: texts concatenate, the signature
 * arrives last.
 */
import type { JsonObject } from './chat-format.js';

/** The `format` of reasoning produced by Claude (thinking and redacted_thinking blocks). */
export const ANTHROPIC_REASONING_FORMAT = 'anthropic-claude-v1';

export type ReasoningDetail =
  /** Readable reasoning, with the provider's signature once complete. */
  | { type: 'reasoning.text'; text?: string; signature?: string; format: string; index: number }
  /** Reasoning the provider withheld, carried as its opaque data (Claude's redacted_thinking). */
  | { type: 'reasoning.encrypted'; data: string; format: string; index: number };

/**
 * The pieces of `reasoning_details` on an assistant message, of one format, merged by index (so a caller may
 * hand back either the whole pieces of an answer or the streamed fragments as they came) and in index order.
 */
export function reasoningDetailsOf(message: JsonObject, format: string): ReasoningDetail[] {
  const raw = message.reasoning_details;
  if (!Array.isArray(raw)) return [];
  const merged = new Map<number, ReasoningDetail>();
  raw.forEach((item, position) => {
    if (!item || typeof item !== 'object') return;
    const piece = item as JsonObject;
    if (piece.format !== undefined && piece.format !== format) return;
    const index = typeof piece.index === 'number' ? piece.index : position;
    const known = merged.get(index);
    if (piece.type === 'reasoning.encrypted' && typeof piece.data === 'string') {
      merged.set(index, { type: 'reasoning.encrypted', data: piece.data, format, index });
    } else if (piece.type === 'reasoning.text') {
      const text = typeof piece.text === 'string' ? piece.text : '';
      const before = known?.type === 'reasoning.text' ? known : undefined;
      const signature = typeof piece.signature === 'string' ? piece.signature : before?.signature;
      merged.set(index, {
        type: 'reasoning.text',
        text: (before?.text ?? '') + text,
        ...(signature ? { signature } : {}),
        format,
        index,
      });
    }
  });
  return [...merged.values()].sort((a, b) => a.index - b.index);
}
