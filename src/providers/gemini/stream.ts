/** Translates Gemini's streamed GenerateContentResponse events into chat.completion.chunk frames. */
import type { CallSignal } from '../../http/call-signal.js';
import { UpstreamError } from '../../http/upstream-error.js';
import {
  type ChunkIdentity,
  chunkFrame,
  type JsonObject,
  newCompletionId,
  nowSeconds,
} from '../chat-format.js';
import { jsonFrame } from '../sse.js';
import type { StreamedFrames } from '../streamed.js';
import type { ChatStreamEvent, ChatUsage } from '../types.js';
import type { UpstreamClient } from '../upstream-client.js';
import { finishReasonOf, partsOf, usageFromGemini } from './response.js';

/**
 * Every event is a partial GenerateContentResponse: its text parts become content deltas, its function
 * calls complete tool call chunks (Gemini sends a call whole), a finishReason the finish chunk. Usage
 * metadata is cumulative, so the last one seen is the answer's usage. Gemini ends the stream without a
 * terminator, so a stream is complete only when every candidate that spoke has finished and usage came.
 */
export async function* translateGeminiStream(
  body: StreamedFrames,
  client: UpstreamClient,
  requestedModel: string,
  signal: CallSignal,
): AsyncGenerator<ChatStreamEvent> {
  let identity: ChunkIdentity | undefined;
  let usage: ChatUsage | undefined;
  let forwarded = 0;
  /** Per candidate: how many tool calls it made so far (the chunk index), and whether it finished. */
  const candidates = new Map<number, { toolCalls: number; finished: boolean }>();
  const fail = (message: string) =>
    new UpstreamError('upstream', client.redact(`${client.provider} ${message}`), {
      beforeFirstByte: forwarded === 0,
    });

  const { groups, release } = body;
  try {
    for await (const group of groups) {
      for (const frame of group) {
        const event = jsonFrame(frame, () => fail('sent a stream event that is not JSON'));
        if (!event) continue;
        if (event.error && typeof event.error === 'object') {
          const message = (event.error as JsonObject).message;
          throw fail(
            `reported an error mid-stream: ${typeof message === 'string' ? message.slice(0, 500) : 'no details'}`,
          );
        }
        const frames: Buffer[] = [];
        identity ??= {
          id: typeof event.responseId === 'string' ? event.responseId : newCompletionId(),
          created: nowSeconds(),
          model: typeof event.modelVersion === 'string' ? event.modelVersion : requestedModel,
        };
        let finishedHere = false;
        const list = Array.isArray(event.candidates) ? (event.candidates as JsonObject[]) : [];
        for (const [position, candidate] of list.entries()) {
          const index = typeof candidate.index === 'number' ? candidate.index : position;
          let state = candidates.get(index);
          if (!state) {
            state = { toolCalls: 0, finished: false };
            candidates.set(index, state);
            frames.push(chunkFrame(identity, { role: 'assistant', content: '' }, null, index));
          }
          const parts = partsOf(candidate);
          if (parts.reasoning) {
            frames.push(chunkFrame(identity, { reasoning_content: parts.reasoning }, null, index));
          }
          if (parts.text) frames.push(chunkFrame(identity, { content: parts.text }, null, index));
          for (const call of parts.toolCalls) {
            const delta = { index: state.toolCalls++, ...call };
            frames.push(chunkFrame(identity, { tool_calls: [delta] }, null, index));
          }
          const finish = finishReasonOf(candidate.finishReason, state.toolCalls > 0);
          if (finish) {
            state.finished = true;
            finishedHere = true;
            frames.push(chunkFrame(identity, {}, finish, index));
          }
        }
        if (list.length === 0 && (event.promptFeedback as JsonObject | undefined)?.blockReason) {
          // The prompt itself was blocked: no candidate will come.
          candidates.set(0, { toolCalls: 0, finished: true });
          finishedHere = true;
          frames.push(
            chunkFrame(identity, { role: 'assistant', content: '' }),
            chunkFrame(identity, {}, 'content_filter'),
          );
        }
        // Early events carry partial usage (prompt counts only): a finishing event without usage voids it.
        const eventUsage = usageFromGemini(event.usageMetadata);
        if (eventUsage) usage = eventUsage;
        else if (finishedHere) usage = undefined;
        for (const bytes of frames) {
          yield { type: 'frame', bytes };
          forwarded++;
        }
      }
    }
  } catch (err) {
    throw client.failure(err, signal, forwarded === 0);
  } finally {
    // Gemini has no terminator: the body has ended here, or the read failed or was abandoned.
    release(false);
  }
  const finished = candidates.size > 0 && [...candidates.values()].every((c) => c.finished);
  if (!identity || !finished) throw fail('ended its stream before a finish reason');
  if (!usage) throw fail('ended its stream without usage');
  yield { type: 'end', usage, ...identity };
}
