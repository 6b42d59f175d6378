/** Translates Anthropic's streaming event sequence into chat.completion.chunk frames, delta by delta. */
import type { CallSignal } from '../../http/call-signal.js';
import { UpstreamError } from '../../http/upstream-error.js';
import { type ChunkIdentity, chunkFrame, type JsonObject, nowSeconds } from '../chat-format.js';
import { ANTHROPIC_REASONING_FORMAT } from '../reasoning-details.js';
import { jsonFrame } from '../sse.js';
import type { StreamedFrames } from '../streamed.js';
import type { ChatStreamEvent } from '../types.js';
import type { UpstreamClient } from '../upstream-client.js';
import { finishReasonOf, usageFromAnthropic } from './response.js';

/**
 * message_start → a role chunk; text_delta → content; tool_use start → a tool call chunk with index, id
 * and name, then input_json_delta → argument fragments;
 * thinking_delta → reasoning_content and a `reasoning_details` text piece, signature_delta → the piece's
 * signature, redacted_thinking → an encrypted piece (see reasoning-details.ts);
 * message_delta → the finish_reason chunk and the output usage; message_stop → `end`. An `error` event,
 * a cut connection or a stream that ends before message_stop is an UpstreamError, never a clean end.
 */
export async function* translateAnthropicStream(
  body: StreamedFrames,
  client: UpstreamClient,
  signal: CallSignal,
): AsyncGenerator<ChatStreamEvent> {
  let identity: ChunkIdentity | undefined;
  let rawUsage: JsonObject = {};
  /** message_start reports output_tokens 1; the real count comes with message_delta. */
  let sawFinalOutput = false;
  let forwarded = 0;
  const { groups, release } = body;
  let clean = false;
  /** Anthropic numbers every content block; tool calls are numbered among tool calls only. */
  const toolIndexOfBlock = new Map<number, number>();
  /** Thinking blocks are numbered among reasoning pieces only (`reasoning_details[].index`). */
  const reasoningIndexOfBlock = new Map<number, number>();
  const reasoningPiece = (block: unknown, part: { text?: string; signature?: string }): JsonObject => {
    let index = reasoningIndexOfBlock.get(Number(block));
    if (index === undefined) {
      index = reasoningIndexOfBlock.size;
      reasoningIndexOfBlock.set(Number(block), index);
    }
    return { type: 'reasoning.text', ...part, format: ANTHROPIC_REASONING_FORMAT, index };
  };
  const fail = (message: string) =>
    new UpstreamError('upstream', client.redact(`${client.provider} ${message}`), {
      beforeFirstByte: forwarded === 0,
    });

  try {
    for await (const group of groups) {
      for (const frame of group) {
        const event = jsonFrame(frame, () => fail('sent a stream event that is not JSON'));
        if (!event) continue;
        let out: Buffer | undefined;
        switch (event.type) {
          case 'message_start': {
            const message = (event.message ?? {}) as JsonObject;
            identity = {
              id: typeof message.id === 'string' ? message.id : 'msg_unknown',
              created: nowSeconds(),
              model: typeof message.model === 'string' ? message.model : 'unknown',
            };
            rawUsage = { ...((message.usage as JsonObject | undefined) ?? {}) };
            out = chunkFrame(identity, { role: 'assistant', content: '' });
            break;
          }
          case 'content_block_start': {
            const block = (event.content_block ?? {}) as JsonObject;
            if (block.type === 'tool_use') {
              const toolIndex = toolIndexOfBlock.size;
              toolIndexOfBlock.set(Number(event.index), toolIndex);
              out = chunkFrame(started(identity), {
                tool_calls: [
                  {
                    index: toolIndex,
                    id: String(block.id),
                    type: 'function',
                    function: { name: String(block.name), arguments: '' },
                  },
                ],
              });
            } else if (block.type === 'text' && typeof block.text === 'string' && block.text !== '') {
              out = chunkFrame(started(identity), { content: block.text });
            } else if (block.type === 'thinking') {
              reasoningIndexOfBlock.set(Number(event.index), reasoningIndexOfBlock.size);
            } else if (block.type === 'redacted_thinking' && typeof block.data === 'string') {
              const index = reasoningIndexOfBlock.size;
              reasoningIndexOfBlock.set(Number(event.index), index);
              out = chunkFrame(started(identity), {
                reasoning_details: [
                  {
                    type: 'reasoning.encrypted',
                    data: block.data,
                    format: ANTHROPIC_REASONING_FORMAT,
                    index,
                  },
                ],
              });
            }
            break;
          }
          case 'content_block_delta': {
            const delta = (event.delta ?? {}) as JsonObject;
            if (delta.type === 'text_delta' && typeof delta.text === 'string') {
              out = chunkFrame(started(identity), { content: delta.text });
            } else if (
              delta.type === 'input_json_delta' &&
              typeof delta.partial_json === 'string' &&
              delta.partial_json
            ) {
              const index = toolIndexOfBlock.get(Number(event.index));
              if (index === undefined) throw fail('sent tool input for a block that is not a tool call');
              out = chunkFrame(started(identity), {
                tool_calls: [{ index, function: { arguments: delta.partial_json } }],
              });
            } else if (delta.type === 'thinking_delta' && typeof delta.thinking === 'string') {
              out = chunkFrame(started(identity), {
                reasoning_content: delta.thinking,
                reasoning_details: [reasoningPiece(event.index, { text: delta.thinking })],
              });
            } else if (delta.type === 'signature_delta' && typeof delta.signature === 'string') {
              out = chunkFrame(started(identity), {
                reasoning_details: [reasoningPiece(event.index, { signature: delta.signature })],
              });
            }
            break;
          }
          case 'message_delta': {
            const usage = (event.usage ?? {}) as JsonObject;
            if (typeof usage.output_tokens === 'number') sawFinalOutput = true;
            // Newer API versions repeat the input counts here; the latest figure wins.
            for (const [key, value] of Object.entries(usage))
              if (typeof value === 'number') rawUsage[key] = value;
            const delta = (event.delta ?? {}) as JsonObject;
            out = chunkFrame(started(identity), {}, finishReasonOf(delta.stop_reason) ?? 'stop');
            break;
          }
          case 'message_stop': {
            const usage = usageFromAnthropic(rawUsage);
            if (!sawFinalOutput || !usage) throw fail('ended its stream without usage');
            clean = true;
            yield { type: 'end', usage, ...started(identity) };
            return;
          }
          case 'error': {
            const error = (event.error ?? {}) as JsonObject;
            const message = typeof error.message === 'string' ? error.message : 'no details';
            throw fail(
              `reported an error mid-stream (${String(error.type ?? 'error')}): ${message.slice(0, 500)}`,
            );
          }
          default:
            // ping, content_block_stop and citation deltas carry nothing for the common format.
            break;
        }
        if (out) {
          yield { type: 'frame', bytes: out };
          forwarded++;
        }
      }
    }
    throw fail('ended its stream before message_stop');
  } catch (err) {
    throw client.failure(err, signal, forwarded === 0);
  } finally {
    release(clean);
  }

  function started(current: ChunkIdentity | undefined): ChunkIdentity {
    if (!current) throw fail('sent content before message_start');
    return current;
  }
}
