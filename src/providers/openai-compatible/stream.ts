/** Relays an OpenAI-compatible SSE stream as the upstream's bytes, a network read at a time, lifting out the usage. */
import type { CallSignal } from '../../http/call-signal.js';
import { UpstreamError } from '../../http/upstream-error.js';
import { type ChunkIdentity, type JsonObject, newCompletionId, nowSeconds } from '../chat-format.js';
import { dataLinePayload, isSingleDataLine, joinFrames, objectKeyAt, readSseFrame } from '../sse.js';
import type { StreamedFrames } from '../streamed.js';
import type { ChatStreamEvent, ChatUsage } from '../types.js';
import type { UpstreamClient } from '../upstream-client.js';

const DONE = '[DONE]';
/** The longest frame the terminator can be: `data: `, `[DONE]` with some whitespace, the blank line. */
const DONE_FRAME_MAX = 'data: '.length + DONE.length + 2 + 2;

type EndEvent = Extract<ChatStreamEvent, { type: 'end' }>;

/**
 * Yields the chunk frames as they arrive: what one network read completed, as one event. Frames the relay
 * leaves untouched — all but the usage-bearing one, usually — stay the upstream's bytes, and a run of them
 * is one view of the received chunk. The usage-only final chunk is not forwarded: it becomes the `end`
 * event, because kasir writes its own final chunk with usage and cost. A stream that stops before `[DONE]`
 * or without usage is a failure, never a clean end.
 */
export async function* relayOpenAiStream(
  body: StreamedFrames,
  client: UpstreamClient,
  requestedModel: string,
  signal: CallSignal,
): AsyncGenerator<ChatStreamEvent> {
  const reader = new OpenAiFrameReader(client, requestedModel);
  const { groups, release } = body;
  let clean = false;
  try {
    for await (const frames of groups) {
      const read = reader.read(frames);
      // Frames that came before a failure or the end, in the same read, still go first.
      if (read.forward) yield { type: 'frame', bytes: read.forward };
      if (read.failure) throw read.failure;
      if (read.end) {
        clean = true;
        yield read.end;
        return;
      }
    }
    throw reader.fail('ended its stream before [DONE]');
  } catch (err) {
    throw client.failure(err, signal, reader.forwarded === 0);
  } finally {
    release(clean);
  }
}

/** What the frames of one network read amount to; `forward` goes out before `failure` or `end`. */
interface FramesRead {
  forward?: Buffer;
  failure?: unknown;
  end?: EndEvent;
}

/**
 * Reads OpenAI-compatible frames: decides per frame whether it passes through, is rewritten or is dropped,
 * and keeps the ids and the usage for the end. Only frames that may carry usage or an error (found by a
 * byte search over all the frames that arrived together) and the first frame (for the ids) are parsed.
 */
class OpenAiFrameReader {
  /** Frames handed out for forwarding so far: none means a failure is still before the first byte. */
  forwarded = 0;
  private identity: ChunkIdentity | undefined;
  private usage: ChatUsage | undefined;

  constructor(
    private readonly client: UpstreamClient,
    private readonly requestedModel: string,
  ) {}

  fail(message: string): UpstreamError {
    return new UpstreamError('upstream', this.client.redact(`${this.client.provider} ${message}`), {
      beforeFirstByte: this.forwarded === 0,
    });
  }

  /** Reads frames in order until they run out, the stream ends (`[DONE]`) or a frame is a failure. */
  read(frames: Buffer[]): FramesRead {
    const forward: Buffer[] = [];
    const read: FramesRead = {};
    const span = joinFrames(frames);
    const usage = new KeySearch(span, 'usage');
    const error = new KeySearch(span, 'error');
    let end = 0;
    // While the frames going out are the first ones in, unchanged, they are the start of `span`: no second copy.
    let asReceived = true;
    let dropped = false;
    let forwardedBytes = 0;
    try {
      for (const frame of frames) {
        end += frame.length;
        const withUsage = usage.foundBefore(end);
        const withError = error.foundBefore(end);
        const out = this.frame(frame, withUsage || withError);
        if (out && 'type' in out) {
          read.end = out;
          break;
        }
        if (out === undefined) {
          dropped = true;
          continue;
        }
        if (out !== frame || dropped) asReceived = false;
        forward.push(out);
        forwardedBytes += out.length;
        this.forwarded++;
      }
    } catch (err) {
      read.failure = err;
    }
    if (forward.length > 0)
      read.forward = asReceived ? span.subarray(0, forwardedBytes) : joinFrames(forward);
    return read;
  }

  /**
   * The bytes to forward for one frame (its own, or rewritten), undefined to drop it, or the end at
   * `[DONE]`. `keyed`: the frame may carry usage or an error.
   */
  private frame(frame: Buffer, keyed: boolean): Buffer | EndEvent | undefined {
    const single = isSingleDataLine(frame);
    // Most frames: one more chunk, passed on as it came without reading it (too long to be the [DONE] line).
    if (single && this.identity && !keyed && frame.length > DONE_FRAME_MAX) return frame;
    const fast = single ? dataLinePayload(frame) : undefined;
    const slow = fast ? undefined : readSseFrame(frame);
    if (slow?.event === 'error') throw this.fail(`sent an error event: ${messageOf(slow.data)}`);
    const payload = fast ?? (slow?.data === undefined ? undefined : Buffer.from(slow.data));
    if (payload === undefined) return undefined;
    if (payload.length <= DONE.length + 2 && payload.toString('latin1').trim() === DONE) {
      if (!this.usage) throw this.fail('ended its stream without usage');
      const ids = this.identity ?? {
        id: newCompletionId(),
        created: nowSeconds(),
        model: this.requestedModel,
      };
      return { type: 'end', usage: this.usage, ...ids };
    }
    if (fast && this.identity && !keyed) return frame;
    const chunk = parseChunk(payload);
    if (!chunk) throw this.fail('sent a stream chunk that is not JSON');
    this.identity ??= identityOf(chunk, this.requestedModel);
    if (chunk.error && typeof chunk.error === 'object') {
      throw this.fail(`reported an error mid-stream: ${messageOf(JSON.stringify(chunk))}`);
    }
    const chunkUsage = usageFrom(chunk.usage);
    if (!chunkUsage) return fast ? frame : dataFrame(chunk);
    this.usage = chunkUsage;
    if (Array.isArray(chunk.choices) && chunk.choices.length === 0) return undefined;
    const { usage: _lifted, ...rest } = chunk;
    return dataFrame(rest);
  }
}

/** Walks, frame by frame, the places in a run of frames where a key with an object value occurs. */
class KeySearch {
  private at: number;

  constructor(
    private readonly span: Buffer,
    private readonly key: string,
  ) {
    this.at = objectKeyAt(span, key);
  }

  /** True when the key occurs before `end` (a frame's end in the span); the search then moves past `end`. */
  foundBefore(end: number): boolean {
    if (this.at < 0 || this.at >= end) return false;
    this.at = objectKeyAt(this.span, this.key, end);
    return true;
  }
}

function dataFrame(chunk: JsonObject): Buffer {
  return Buffer.from(`data: ${JSON.stringify(chunk)}\n\n`);
}

/**
 * Real token counts from a usage object, or undefined when there are none (a missing usage is an alarm), in the
 * common format's semantics: `completion_tokens` includes the reasoning tokens, which are also broken out in
 * `completion_tokens_details.reasoning_tokens`. xAI counts reasoning apart (`total = prompt + completion +
 * reasoning`) and bills it as output; that shape is recognised by its total and the reasoning is folded into
 * `completion_tokens`, so callers, metering and the bill see what the provider bills.
 */
export function usageFrom(value: unknown): ChatUsage | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const usage = value as JsonObject;
  const prompt = usage.prompt_tokens;
  let completion = usage.completion_tokens;
  if (typeof prompt !== 'number' || typeof completion !== 'number') return undefined;
  const reasoning = reasoningTokensOf(usage);
  if (reasoning > 0 && usage.total_tokens === prompt + completion + reasoning) completion += reasoning;
  return {
    ...usage,
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
}

function reasoningTokensOf(usage: JsonObject): number {
  const details = usage.completion_tokens_details;
  if (!details || typeof details !== 'object') return 0;
  const reasoning = (details as JsonObject).reasoning_tokens;
  return typeof reasoning === 'number' && reasoning > 0 ? reasoning : 0;
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
