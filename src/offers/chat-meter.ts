/**
 * Counts a streamed chat answer's output as it passes (a metered stream on a payment channel): the tokens of every
 * choice's content, reasoning and tool-call arguments in the chat-chunk frames, with the tokenizer the quote uses;
 * and closes an answer kasir stops early, in the same chunk format.
 */
import { estimateInputTokens } from '../catalog/chat-tokens.js';
import { countTokens } from '../catalog/tokenizer.js';
import type { OutputMeter, StreamEvent } from '../checkout/offer.js';
import type { ChatStreamEvent, ChatUsage } from '../providers/types.js';

interface ChunkDelta {
  content?: unknown;
  reasoning_content?: unknown;
  tool_calls?: Array<{ function?: { arguments?: unknown } }>;
}

interface Chunk {
  id?: unknown;
  created?: unknown;
  choices?: Array<{ index?: unknown; delta?: ChunkDelta }>;
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** The output text one chunk adds, every choice together. */
function outputOf(chunk: Chunk): string {
  let out = '';
  for (const choice of Array.isArray(chunk.choices) ? chunk.choices : []) {
    const delta = choice?.delta;
    if (!delta) continue;
    out += text(delta.content) + text(delta.reasoning_content);
    for (const call of Array.isArray(delta.tool_calls) ? delta.tool_calls : [])
      out += text(call?.function?.arguments);
  }
  return out;
}

/** A meter for one streamed answer of `modelId` to `input`. */
export function chatOutputMeter(modelId: string, input: Record<string, unknown>): OutputMeter {
  let id = '';
  let created = 0;
  const indexes = new Set<number>();
  return {
    tokensIn(bytes) {
      let tokens = 0;
      for (const line of bytes.toString('utf8').split('\n')) {
        if (!line.startsWith('data:')) continue;
        const data = line.slice(5).trim();
        if (data === '' || data === '[DONE]') continue;
        let chunk: Chunk;
        try {
          chunk = JSON.parse(data) as Chunk;
        } catch {
          continue;
        }
        if (!id && typeof chunk.id === 'string') id = chunk.id;
        if (!created && typeof chunk.created === 'number') created = chunk.created;
        for (const choice of Array.isArray(chunk.choices) ? chunk.choices : [])
          if (typeof choice?.index === 'number') indexes.add(choice.index);
        const out = outputOf(chunk);
        if (out) tokens += countTokens(out);
      }
      return tokens;
    },

    reported(end) {
      const usage = (end as Extract<ChatStreamEvent, { type: 'end' }>).usage;
      return typeof usage?.completion_tokens === 'number' ? usage.completion_tokens : undefined;
    },

    cutShort(outputTokens) {
      const chunkId = id || 'chatcmpl-kasir';
      const at = created || Math.floor(Date.now() / 1000);
      const choices = [...(indexes.size ? indexes : [0])].map((index) => ({
        index,
        delta: {},
        finish_reason: 'length',
      }));
      const finish = { id: chunkId, object: 'chat.completion.chunk', created: at, model: modelId, choices };
      const prompt = estimateInputTokens(input);
      const usage: ChatUsage = {
        prompt_tokens: prompt,
        completion_tokens: outputTokens,
        total_tokens: prompt + outputTokens,
      };
      const end: Extract<ChatStreamEvent, { type: 'end' }> = {
        type: 'end',
        usage,
        id: chunkId,
        model: modelId,
        created: at,
      };
      return {
        frames: Buffer.from(`data: ${JSON.stringify(finish)}\n\n`),
        end: end as StreamEvent & { type: 'end' },
      };
    },
  };
}
