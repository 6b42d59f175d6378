/**
 * Shared parts of the fake chat upstreams (openai-upstream.ts, anthropic-upstream.ts, gemini-upstream.ts):
 * the script that says how the next answer goes, the recorded requests, the HTTP server and the pacing of
 * streamed events.
 *
 * A script describes one answer in neutral terms; each fake renders it in its own wire format:
 *   { text: 'Hi', events: 10, delayMs: 5 }                      10 text deltas, 5 ms apart
 *   { toolCalls: [{ name: 'get_weather', arguments: { city: 'Jakarta' } }] }
 *   { usage: { prompt: 30, completion: 7, cacheRead: 4 } }
 *   { failure: { kind: 'status', status: 429 } }                the provider's real error body for 429
 *   { failure: { kind: 'hang' } }                               never answers (for timeouts)
 *   { failure: { kind: 'die', afterEvents: 3 } }                destroys the socket after 3 stream events
 *   { failure: { kind: 'no_usage' } }                           answers without usage
 *   { failure: { kind: 'no_done' } }                            stream ends without its terminator
 *   { failure: { kind: 'error_event', afterEvents: 2 } }        an in-stream error event after 2 events
 *   { failure: { kind: 'invalid_json' } }                       200 with a body that is not JSON
 * `setScript(a, b, c)` queues scripts: each request takes the next one and the last one repeats.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { SseFrameSplitter } from '../../src/providers/sse.js';
import type { ChatStreamEvent } from '../../src/providers/types.js';
import { sendJson as answerJson, closeServer, listen } from './http.js';

export interface FakeToolCall {
  /** The upstream's id for the call; generated when absent. */
  id?: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface FakeUsage {
  prompt: number;
  completion: number;
  /** Anthropic cache reads / Gemini cached content / OpenAI cached tokens. */
  cacheRead?: number;
  /** Anthropic cache writes. */
  cacheWrite?: number;
  /** Thinking tokens (Gemini thoughtsTokenCount, OpenAI reasoning_tokens). */
  reasoning?: number;
}

export type FakeFinish = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export type FakeFailure =
  | { kind: 'status'; status: number; message?: string }
  | { kind: 'hang' }
  | { kind: 'die'; afterEvents: number }
  | { kind: 'no_usage' }
  | { kind: 'no_done' }
  | { kind: 'error_event'; afterEvents: number; message?: string }
  | { kind: 'invalid_json' };

export interface FakeChatScript {
  /** The answer text; by default a greeting that also lists the images the request carried (vision echo). */
  text?: string;
  /** Thinking text (Anthropic thinking block, Gemini thought part, OpenAI-compatible reasoning_content). */
  reasoning?: string;
  toolCalls?: FakeToolCall[];
  /** Default: { prompt: 21, completion: 13 }. */
  usage?: FakeUsage;
  /** Default: tool_calls when there are tool calls, else stop. */
  finish?: FakeFinish;
  /** How many deltas the text is split into when streaming (default 10). */
  events?: number;
  /** Pause before every stream event after the first (default 0). */
  delayMs?: number;
  /** Pause before answering at all (headers included), as a model writing a long non-streamed answer. */
  answerDelayMs?: number;
  /** OpenAI-compatible only: put usage on the finish chunk (as Together does) instead of a usage-only chunk. */
  usageOnFinishChunk?: boolean;
  failure?: FakeFailure;
}

export interface RecordedRequest {
  method: string;
  /** Path with query string, e.g. `/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (an empty object when it was not JSON). */
  body: Record<string, unknown>;
  /** The client's port: equal ports on two requests mean the connection was kept alive and reused. */
  remotePort: number | undefined;
  /** Stream events written so far. */
  eventsSent: number;
  /** True once the answer was completely written (false while streaming, hanging, or after a kill). */
  finished: boolean;
  /** True when the client closed the connection before the answer was complete. */
  clientClosed: boolean;
}

export interface FakeUpstream {
  /** The base URL to configure as the provider's base URL. */
  url: string;
  /** Every request received, oldest first (clear with `requests.length = 0`). */
  requests: RecordedRequest[];
  /** Queues scripts: request i (counted from this call) takes script i; the last one repeats. */
  setScript(...scripts: FakeChatScript[]): void;
  close(): Promise<void>;
}

export interface FakeUpstreamOptions {
  /** When set, requests must carry this key the provider's way, or get the provider's real 401/400. */
  apiKey?: string;
  /**
   * OpenAI-compatible fake only: speak xAI's dialect. Usage counts reasoning apart from `completion_tokens`
   * (`total = prompt + completion + reasoning`), and reasoning models refuse `stop`, `presence_penalty`,
   * `frequency_penalty` and (all but grok-3-mini) `reasoning_effort` with a 400, as xAI documents.
   */
  dialect?: 'xai';
  /** The first scripts (as `setScript`); default one plain answer. */
  script?: FakeChatScript | FakeChatScript[];
}

export const DEFAULT_USAGE: FakeUsage = { prompt: 21, completion: 13 };

/** Handles one request with the script it drew; returns when the answer is written (or abandoned). */
export type FakeHandler = (
  request: RecordedRequest,
  script: FakeChatScript,
  res: ServerResponse,
  raw: IncomingMessage,
) => Promise<void>;

/** Starts an HTTP server on 127.0.0.1 with a random port that records each request and runs `handle`. */
export async function startFakeUpstream(
  options: FakeUpstreamOptions,
  basePath: string,
  handle: FakeHandler,
): Promise<FakeUpstream> {
  const requests: RecordedRequest[] = [];
  let scripts: FakeChatScript[] = [options.script ?? {}].flat();
  let drawn = 0;
  const server = createServer({ noDelay: true }, (raw, res) => {
    const chunks: Buffer[] = [];
    raw.on('data', (chunk: Buffer) => chunks.push(chunk));
    raw.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, unknown> = {};
      try {
        const parsed: unknown = JSON.parse(text);
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
          body = parsed as Record<string, unknown>;
      } catch {
        // recorded as an empty object; the handler refuses it the provider's way
      }
      const request: RecordedRequest = {
        method: raw.method ?? 'GET',
        path: raw.url ?? '/',
        headers: raw.headers,
        body,
        remotePort: raw.socket.remotePort,
        eventsSent: 0,
        finished: false,
        clientClosed: false,
      };
      requests.push(request);
      res.on('close', () => {
        if (!request.finished && !res.writableFinished) request.clientClosed = true;
      });
      const script = scripts[Math.min(drawn++, scripts.length - 1)] ?? {};
      const delay = script.answerDelayMs ? sleep(script.answerDelayMs) : Promise.resolve();
      delay
        .then(() => handle(request, script, res, raw))
        .catch((err: unknown) => {
          if (err instanceof ConnectionKilled) return;
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(String(err));
        });
    });
  });
  const base = await listen(server);
  return {
    url: `${base}${basePath}`,
    requests,
    setScript(...next) {
      scripts = next.length ? next : [{}];
      drawn = 0;
    },
    close: () => closeServer(server),
  };
}

/** Thrown inside a handler when the script cut the connection; the server ignores it. */
export class ConnectionKilled extends Error {}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  request?: RecordedRequest,
): void {
  answerJson(res, status, body);
  if (request) request.finished = true;
}

/** A failure that happens before any answer: a status with the provider's error body, a hang, or bad JSON. */
export function earlyFailure(
  script: FakeChatScript,
  res: ServerResponse,
  request: RecordedRequest,
  errorBody: (status: number, message: string | undefined) => unknown,
): boolean {
  const failure = script.failure;
  if (failure?.kind === 'status') {
    // Rate limits come with the delay to wait, as every provider's 429 does.
    if (failure.status === 429) res.setHeader('retry-after', '1');
    sendJson(res, failure.status, errorBody(failure.status, failure.message), request);
    return true;
  }
  if (failure?.kind === 'hang') return true;
  if (failure?.kind === 'invalid_json') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"id": "truncated');
    request.finished = true;
    return true;
  }
  return false;
}

/**
 * Writes SSE events with the script's pacing. `die` destroys the socket and `error_event` writes
 * `errorEvent` and ends, both before event number `afterEvents`.
 */
export async function playStream(
  res: ServerResponse,
  request: RecordedRequest,
  script: FakeChatScript,
  events: string[],
  errorEvent: string,
): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
  const failure = script.failure;
  let flushed: Promise<void> = Promise.resolve();
  for (const [i, event] of events.entries()) {
    if (failure?.kind === 'die' && i === failure.afterEvents) {
      // Cut only once the events before have left, so the client really sees them and then the cut.
      await flushed;
      res.socket?.destroy();
      throw new ConnectionKilled();
    }
    if (failure?.kind === 'error_event' && i === failure.afterEvents) {
      res.end(errorEvent);
      return;
    }
    if (i > 0 && script.delayMs) await sleep(script.delayMs);
    if (res.destroyed) return;
    flushed = new Promise<void>((resolve) => res.write(event, () => resolve()));
    request.eventsSent++;
  }
  res.end();
  request.finished = true;
}

/** Splits a text into `count` consecutive non-empty pieces (fewer when the text is shorter). */
export function splitText(text: string, count: number): string[] {
  if (text === '') return [];
  const size = Math.ceil(text.length / Math.max(1, count));
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += size) pieces.push(text.slice(at, at + size));
  return pieces;
}

/** The default answer: a greeting that lists the images received, so tests can see vision input arrive. */
export function echoText(provider: string, images: string[]): string {
  const greeting = `Hello from the fake ${provider} upstream.`;
  return images.length ? `${greeting} I see ${images.length} image(s): ${images.join(', ')}.` : greeting;
}

/** How an image input is named in the echo: the URL, or `<media type> inline` for embedded data. */
export function describeInline(mediaType: string): string {
  return `${mediaType} inline`;
}

export function finishOf(script: FakeChatScript): FakeFinish {
  return script.finish ?? (script.toolCalls?.length ? 'tool_calls' : 'stop');
}

export function usageOf(script: FakeChatScript): FakeUsage {
  return script.usage ?? DEFAULT_USAGE;
}

export function toolCallId(prefix: string, call: FakeToolCall, index: number): string {
  return call.id ?? `${prefix}${String(index + 1).padStart(4, '0')}`;
}

/** A chat.completion.chunk as tests read it. */
export interface ParsedChunk {
  id: string;
  model: string;
  choices: Array<{
    index: number;
    delta: {
      role?: string;
      content?: string;
      reasoning_content?: string;
      tool_calls?: Array<{
        index: number;
        id?: string;
        type?: string;
        function: { name?: string; arguments?: string };
        extra_content?: unknown;
      }>;
    };
    finish_reason: string | null;
  }>;
  usage?: unknown;
}

export interface ReadChatStream {
  /** Every frame's bytes, as the adapter yielded them (an event may carry several frames). */
  frames: Buffer[];
  chunks: ParsedChunk[];
  /** The content deltas joined. */
  text: string;
  end: Extract<ChatStreamEvent, { type: 'end' }> | undefined;
}

/**
 * Reads an adapter's stream to its end (rejects with the adapter's error). Every frame event must hold
 * whole `data: {chunk}` frames only.
 */
export async function readChatStream(stream: AsyncIterable<ChatStreamEvent>): Promise<ReadChatStream> {
  const result: ReadChatStream = { frames: [], chunks: [], text: '', end: undefined };
  for await (const event of stream) {
    if (event.type === 'end') {
      if (result.end) throw new Error('two end events');
      result.end = event;
      continue;
    }
    if (result.end) throw new Error('a frame after the end event');
    const splitter = new SseFrameSplitter();
    const frames = splitter.push(event.bytes);
    if (frames.length === 0 || splitter.flush() !== undefined)
      throw new Error(`not whole SSE frames: ${event.bytes.toString('utf8')}`);
    for (const frame of frames) {
      result.frames.push(frame);
      const text = frame.toString('utf8');
      if (!text.startsWith('data: ') || !text.endsWith('\n\n')) throw new Error(`not one SSE frame: ${text}`);
      const chunk = JSON.parse(text.slice(6, -2)) as ParsedChunk;
      result.chunks.push(chunk);
      result.text += chunk.choices.map((c) => c.delta.content ?? '').join('');
    }
  }
  return result;
}

/**
 * Asserts the contract every chat adapter keeps when a stream goes wrong after it started: at least one
 * frame was delivered, then an `upstream` failure marked as after the first byte (never a clean end).
 */
export async function expectStreamFailureAfterFirstByte(
  events: AsyncIterable<ChatStreamEvent>,
  message: string,
): Promise<void> {
  const { expect } = await import('vitest');
  const frames: Buffer[] = [];
  const run = async () => {
    for await (const event of events) if (event.type === 'frame') frames.push(event.bytes);
  };
  await expect(run()).rejects.toMatchObject({
    kind: 'upstream',
    message: expect.stringContaining(message),
    options: { beforeFirstByte: false },
  });
  expect(frames.length).toBeGreaterThan(0);
}
