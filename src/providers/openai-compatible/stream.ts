/** Relays an OpenAI-compatible SSE stream frame by frame, as the upstream's bytes, lifting out the usage. */
import { type ChunkIdentity, type JsonObject, newCompletionId, nowSeconds } from '../chat-format.js';
import { streamedFrames, type UpstreamClient, type UpstreamResponse } from '../http.js';
import { hasObjectKey, readSseFrame, singleDataLine } from '../sse.js';
import { type ChatStreamEvent, type ChatUsage, UpstreamError } from '../types.js';

const USAGE_KEY = Buffer.from('"usage"');
const ERROR_KEY = Buffer.from('"error"');
const DONE = '[DONE]';

/**
 * Yields each chunk frame as it arrives. Only frames that may carry usage or an error (found by a byte
 * search) and the first frame (for the ids) are parsed; the rest pass through untouched. The usage-only
 * final chunk is not forwarded: it becomes the `end` event, because kasir writes its own final chunk with
 * usage and cost. A stream that stops before `[DONE]` or without usage is a failure, never a clean end.
 */
export async function* relayOpenAiStream(
  res: UpstreamResponse,
  client: UpstreamClient,
  requestedModel: string,
  signal: AbortSignal,
): AsyncGenerator<ChatStreamEvent> {
  let identity: ChunkIdentity | undefined;
  let usage: ChatUsage | undefined;
  let forwarded = 0;
  const { frames, release } = streamedFrames(res);
  let clean = false;
  const fail = (message: string) =>
    new UpstreamError('upstream', client.redact(`${client.provider} ${message}`), {
      beforeFirstByte: forwarded === 0,
    });
  try {
    for await (const frame of frames) {
      const fast = singleDataLine(frame);
      const slow = fast ? undefined : readSseFrame(frame);
      if (slow?.event === 'error') throw fail(`sent an error event: ${messageOf(slow.data)}`);
      const payload = fast ?? (slow?.data === undefined ? undefined : Buffer.from(slow.data));
      if (payload === undefined) continue;
      if (payload.length <= DONE.length + 2 && payload.toString('latin1').trim() === DONE) {
        if (!usage) throw fail('ended its stream without usage');
        const ids = identity ?? { id: newCompletionId(), created: nowSeconds(), model: requestedModel };
        clean = true;
        yield { type: 'end', usage, ...ids };
        return;
      }
      let outgoing = fast ? frame : undefined;
      if (!fast || !identity || hasObjectKey(payload, USAGE_KEY) || hasObjectKey(payload, ERROR_KEY)) {
        const chunk = parseChunk(payload);
        if (!chunk) throw fail('sent a stream chunk that is not JSON');
        identity ??= identityOf(chunk, requestedModel);
        if (chunk.error && typeof chunk.error === 'object') {
          throw fail(`reported an error mid-stream: ${messageOf(JSON.stringify(chunk))}`);
        }
        const chunkUsage = usageFrom(chunk.usage);
        if (chunkUsage) {
          usage = chunkUsage;
          if (Array.isArray(chunk.choices) && chunk.choices.length === 0) continue;
          const { usage: _lifted, ...rest } = chunk;
          outgoing = Buffer.from(`data: ${JSON.stringify(rest)}\n\n`);
        } else if (!outgoing) {
          outgoing = Buffer.from(`data: ${JSON.stringify(chunk)}\n\n`);
        }
      }
      if (!outgoing) continue;
      yield { type: 'frame', bytes: outgoing };
      forwarded++;
    }
    throw fail('ended its stream before [DONE]');
  } catch (err) {
    throw client.failure(err, signal, forwarded === 0);
  } finally {
    release(clean);
  }
}

/** Real token counts from a usage object, or undefined when there are none (a missing usage is an alarm). */
export function usageFrom(value: unknown): ChatUsage | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const usage = value as JsonObject;
  const prompt = usage.prompt_tokens;
  const completion = usage.completion_tokens;
  if (typeof prompt !== 'number' || typeof completion !== 'number') return undefined;
  const total = typeof usage.total_tokens === 'number' ? usage.total_tokens : prompt + completion;
  return { ...usage, prompt_tokens: prompt, completion_tokens: completion, total_tokens: total };
}

function parseChunk(payload: Buffer): JsonObject | undefined {
  try {
    const parsed: unknown = JSON.parse(payload.toString('utf8'));
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as JsonObject)
      : undefined;
  } catch {
    return undefined;
  }
}

function identityOf(chunk: JsonObject, requestedModel: string): ChunkIdentity {
  return {
    id: typeof chunk.id === 'string' ? chunk.id : newCompletionId(),
    created: typeof chunk.created === 'number' ? chunk.created : nowSeconds(),
    model: typeof chunk.model === 'string' ? chunk.model : requestedModel,
  };
}

function messageOf(data: string | undefined): string {
  if (!data) return 'no details';
  try {
    const parsed = JSON.parse(data) as { error?: { message?: unknown } | string; message?: unknown };
    const error = parsed.error;
    const message = typeof error === 'string' ? error : (error?.message ?? parsed.message);
    if (typeof message === 'string') return message.slice(0, 500);
  } catch {
    // not JSON: the raw text below
  }
  return data.slice(0, 500);
}
