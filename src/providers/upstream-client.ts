/**
 * The client of one upstream base URL: JSON, byte and stream requests over the origin's keep-alive pool, with the
 * upstream timeouts; every failure comes out as an UpstreamError (see upstream-refusal.ts for a non-2xx answer).
 */
import type { Dispatcher, Pool } from 'undici';
import type { CallSignal } from '../http/call-signal.js';
import { UpstreamError } from '../http/upstream-error.js';
import { type BufferedAnswer, bufferedRequest } from './buffered.js';
import type { UpstreamPools } from './pools.js';
import { type StreamedAnswer, type StreamedFrames, streamedRequest } from './streamed.js';
import { classifyStatus, redact } from './upstream-refusal.js';

export interface UpstreamClientOptions {
  /** The provider's name, as used in messages and logs. */
  provider: string;
  /** Base URL, possibly with a path (`https://api.openai.com/v1`); request paths are appended to it. */
  baseUrl: string;
  /** How long to wait for response headers, and at most between two chunks of a body. */
  timeoutMs: number;
  /** The longest silence between two chunks of a streamed body (default `timeoutMs`). */
  idleTimeoutMs?: number;
  /**
   * How long a JSON answer (`postJson`) may take to start: for a non-streamed generation that is the whole
   * call, since the answer comes once the model has finished (default `timeoutMs`).
   */
  answerTimeoutMs?: number;
  /**
   * How long a POST (the work itself: an image made, a file transcribed) may take to its first byte, when longer
   * than `timeoutMs` (the media adapters: the providers bill work that runs for minutes).
   */
  firstByteTimeoutMs?: number;
  /** How long a read of a queued job (GET, PUT or DELETE: status, result, cancel) may take, when shorter. */
  readTimeoutMs?: number;
  pools: UpstreamPools;
  /** Our key for this upstream, scrubbed from every message that could reach a caller. */
  secret?: string | undefined;
  /** For upstreams that report a bad key with an unusual status (Gemini answers 400 API_KEY_INVALID). */
  isCredentialFailure?: (status: number, errorBody: unknown) => boolean;
}

/** The largest JSON answer read from an upstream (completions with several choices and long outputs fit). */
const JSON_ANSWER_LIMIT = 64 * 1024 * 1024;
/** The longest error body read from an upstream; the rest is dropped. */
const ERROR_BODY_LIMIT = 64 * 1024;

/** Talks to one upstream base URL; every failure comes out as an UpstreamError (or the caller's abort reason). */
export class UpstreamClient {
  readonly provider: string;
  private readonly pool: Pool;
  private readonly basePath: string;

  constructor(private readonly options: UpstreamClientOptions) {
    const url = new URL(options.baseUrl);
    this.provider = options.provider;
    this.pool = options.pools.get(url.origin);
    this.basePath = url.pathname.replace(/\/+$/, '');
  }

  /** POSTs a JSON body and resolves, once a 2xx answer starts, with its server-sent-event frames. */
  async openStream(
    path: string,
    payload: unknown,
    headers: Record<string, string>,
    signal: CallSignal,
  ): Promise<StreamedFrames> {
    let answer: StreamedAnswer;
    try {
      answer = await streamedRequest(
        this.pool,
        this.jsonPost(path, payload, headers, this.options.timeoutMs),
        signal,
        ERROR_BODY_LIMIT,
      );
    } catch (err) {
      throw this.failure(err, signal, true);
    }
    if (answer.ok) return answer.frames;
    throw this.refusal(answer.statusCode, answer.body.toString('utf8'));
  }

  /** POSTs a JSON body and parses the JSON answer (read whole, at most JSON_ANSWER_LIMIT bytes). */
  postJson(
    path: string,
    payload: unknown,
    headers: Record<string, string>,
    signal: CallSignal,
  ): Promise<unknown> {
    const waitMs = this.options.answerTimeoutMs ?? this.options.firstByteTimeoutMs ?? this.options.timeoutMs;
    return this.exchangeJson(this.jsonPost(path, payload, headers, waitMs), signal);
  }

  /** GETs `path` under the base URL and parses the JSON answer (a queue's status or result, say). */
  getJson(path: string, headers: Record<string, string>, signal: CallSignal): Promise<unknown> {
    return this.exchangeJson(this.bare('GET', path, headers), signal);
  }

  /** PUTs `path` with no body and parses the JSON answer (a queue's cancel). */
  putEmpty(path: string, headers: Record<string, string>, signal: CallSignal): Promise<unknown> {
    return this.exchangeJson(this.bare('PUT', path, headers), signal);
  }

  /** DELETEs `path` (a task's cancel); any 2xx answer, empty or not, is success. */
  async deleteResource(path: string, headers: Record<string, string>, signal: CallSignal): Promise<void> {
    let answer: BufferedAnswer;
    try {
      answer = await bufferedRequest(this.pool, this.bare('DELETE', path, headers), signal, {
        ok: ERROR_BODY_LIMIT,
        error: ERROR_BODY_LIMIT,
      });
    } catch (err) {
      throw this.failure(err, signal, true);
    }
    if (answer.statusCode < 200 || answer.statusCode >= 300)
      throw this.refusal(answer.statusCode, answer.body.toString('utf8'), answer.retryAfter);
  }

  /**
   * POSTs a body (JSON, or multipart built by the caller) and returns the raw 2xx answer with its content type:
   * audio bytes from a speech endpoint, say (at most `limit` bytes).
   */
  async postForBytes(
    path: string,
    body: { contentType: string; bytes: Buffer | string },
    headers: Record<string, string>,
    signal: CallSignal,
    limit: number,
  ): Promise<{ contentType: string; bytes: Buffer }> {
    let contentType = '';
    const options: Dispatcher.DispatchOptions = {
      method: 'POST',
      path: this.basePath + path,
      headers: { 'content-type': body.contentType, 'user-agent': 'kasir', ...headers },
      body: body.bytes,
      headersTimeout: this.options.firstByteTimeoutMs ?? this.options.timeoutMs,
      bodyTimeout: this.options.timeoutMs,
    };
    let answer: BufferedAnswer;
    try {
      answer = await bufferedRequest(
        this.pool,
        options,
        signal,
        { ok: limit, error: ERROR_BODY_LIMIT },
        (type) => {
          contentType = type;
        },
      );
    } catch (err) {
      throw this.failure(err, signal, true);
    }
    if (answer.statusCode < 200 || answer.statusCode >= 300)
      throw this.refusal(answer.statusCode, answer.body.toString('utf8'));
    if (answer.truncated)
      throw new UpstreamError('upstream', `${this.provider} answered with more than ${limit} bytes`, {
        status: answer.statusCode,
      });
    return { contentType, bytes: answer.body };
  }

  /**
   * POSTs a body (raw bytes or multipart) whose 2xx answer is JSON of up to `limit` bytes (a long transcript, an
   * upload's receipt); an answer that is not JSON comes back undefined, for the adapter's response map to refuse.
   */
  async postForJson(
    path: string,
    body: { contentType: string; bytes: Buffer | string },
    headers: Record<string, string>,
    signal: CallSignal,
    limit: number,
  ): Promise<unknown> {
    const answer = await this.postForBytes(path, body, headers, signal, limit);
    try {
      return JSON.parse(answer.bytes.toString('utf8'));
    } catch {
      return undefined;
    }
  }

  /** Sends one request and parses its JSON answer, classifying every failure. */
  private async exchangeJson(options: Dispatcher.DispatchOptions, signal: CallSignal): Promise<unknown> {
    let answer: BufferedAnswer;
    try {
      answer = await bufferedRequest(this.pool, options, signal, {
        ok: JSON_ANSWER_LIMIT,
        error: ERROR_BODY_LIMIT,
      });
    } catch (err) {
      throw this.failure(err, signal, true, options.headersTimeout ?? undefined);
    }
    const { statusCode } = answer;
    if (statusCode < 200 || statusCode >= 300)
      throw this.refusal(statusCode, answer.body.toString('utf8'), answer.retryAfter);
    const notJson = (why: string) =>
      new UpstreamError('upstream', `${this.provider} answered with ${why}`, {
        status: statusCode,
        beforeFirstByte: true,
      });
    if (answer.truncated) throw notJson(`more than ${JSON_ANSWER_LIMIT / 1024 / 1024} MB`);
    try {
      return JSON.parse(answer.body.toString('utf8'));
    } catch {
      throw notJson('a body that is not JSON');
    }
  }

  /** A request without a body to `path` under the base URL. */
  private bare(
    method: 'GET' | 'PUT' | 'DELETE',
    path: string,
    headers: Record<string, string>,
  ): Dispatcher.DispatchOptions {
    return {
      method,
      path: this.basePath + path,
      headers: { 'user-agent': 'kasir', ...headers },
      headersTimeout: this.options.readTimeoutMs ?? this.options.timeoutMs,
      bodyTimeout: this.options.readTimeoutMs ?? this.options.timeoutMs,
    };
  }

  /** A JSON POST to `path` under the base URL, with the upstream timeouts. */
  private jsonPost(
    path: string,
    payload: unknown,
    headers: Record<string, string>,
    headersTimeout: number,
  ): Dispatcher.DispatchOptions {
    return {
      method: 'POST',
      path: this.basePath + path,
      headers: { 'content-type': 'application/json', 'user-agent': 'kasir', ...headers },
      body: JSON.stringify(payload),
      headersTimeout,
      bodyTimeout: this.options.idleTimeoutMs ?? this.options.timeoutMs,
    };
  }

  /** The failure for a non-2xx answer with this error body. */
  private refusal(status: number, body: string, retryAfter?: string): UpstreamError {
    return classifyStatus({
      provider: this.provider,
      status,
      body,
      retryAfter,
      secret: this.options.secret,
      isCredentialFailure: this.options.isCredentialFailure,
    });
  }

  /** Removes our key from a text that may reach a caller. */
  redact(text: string): string {
    return redact(text, this.options.secret);
  }

  /**
   * What to throw for anything raised while talking to the upstream: UpstreamErrors pass through, an
   * aborted call rethrows the abort reason (the caller is gone, nothing to classify), timeouts become
   * `timeout`, everything else `upstream`.
   */
  failure(err: unknown, signal: CallSignal, beforeFirstByte: boolean, waitedMs?: number): unknown {
    if (err instanceof UpstreamError) return err;
    if (signal.aborted) return signal.reason;
    const code = (err as { code?: unknown } | null)?.code;
    if (code === 'UND_ERR_HEADERS_TIMEOUT') {
      const waited = waitedMs ?? this.options.timeoutMs;
      return new UpstreamError('timeout', `${this.provider} did not answer within ${waited} ms`, {
        beforeFirstByte,
      });
    }
    if (code === 'UND_ERR_BODY_TIMEOUT') {
      const idleMs = this.options.idleTimeoutMs ?? this.options.timeoutMs;
      return new UpstreamError('timeout', `${this.provider} stopped sending for ${idleMs} ms`, {
        beforeFirstByte,
      });
    }
    const message = err instanceof Error ? err.message : String(err);
    const detail = typeof code === 'string' ? `${message} (${code})` : message;
    return new UpstreamError(
      'upstream',
      redact(`connection to ${this.provider} failed: ${detail}`, this.options.secret),
      { beforeFirstByte },
    );
  }
}
