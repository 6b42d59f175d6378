/**
 * One upstream request whose answer is read whole into memory, through undici's dispatch API. Written against
 * the handler interface because undici's `request()` builds a body stream and its own abort-signal wiring for
 * every call, which together cost more than the rest of a small JSON exchange; here the answer is a list of
 * chunks and the caller's signal gets one listener.
 */
import type { Dispatcher } from 'undici';
import type { CallSignal } from '../http/call-signal.js';

export interface BufferedAnswer {
  statusCode: number;
  body: Buffer;
  /** The upstream sent more than its limit: `body` holds the first bytes up to it, and the connection was cut. */
  truncated: boolean;
  /** A refusal's `Retry-After` header, as sent (seconds or an HTTP date). */
  retryAfter?: string;
}

class AnswerTooLarge extends Error {}

/** How much of an answer is kept: a 2xx body, and an error body (only its message is of use). */
export interface AnswerLimits {
  ok: number;
  error: number;
}

/**
 * Sends `options` through `dispatcher` and resolves with the status and the body once it has ended. Rejects
 * with undici's error (timeouts and connection failures carry its `UND_ERR_*` codes) or, when `signal` aborts,
 * with the signal's reason; the request is cut either way.
 */
export function bufferedRequest(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  signal: CallSignal,
  limits: AnswerLimits,
  /** Told the answer's content type (bare, lower case) when its headers arrive. */
  onContentType?: (type: string) => void,
): Promise<BufferedAnswer> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    let controller: Dispatcher.DispatchController | null = null;
    let settled = false;
    let statusCode = 0;
    let retryAfter: string | undefined;
    let limit = limits.ok;
    let size = 0;
    const chunks: Buffer[] = [];
    const settle = (err: unknown, truncated = false) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (err !== undefined) {
        reject(err);
        return;
      }
      const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
      const answer: BufferedAnswer = {
        statusCode,
        body: truncated ? body.subarray(0, limit) : body,
        truncated,
      };
      if (retryAfter !== undefined) answer.retryAfter = retryAfter;
      resolve(answer);
    };
    const onAbort = () => {
      const { reason } = signal;
      controller?.abort(reason instanceof Error ? reason : new Error('request aborted'));
      settle(reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });

    dispatcher.dispatch(options, {
      onRequestStart(c) {
        controller = c;
        // Aborted while queued for a connection: stop before anything is sent.
        if (settled) c.abort(new Error('request no longer wanted'));
      },
      onResponseStart(_c, status, headers) {
        statusCode = status;
        if (onContentType) {
          const type = headers['content-type'];
          onContentType(
            String(Array.isArray(type) ? type[0] : (type ?? ''))
              .split(';', 1)[0]
              ?.trim()
              .toLowerCase() ?? '',
          );
        }
        if (status < 200 || status >= 300) {
          limit = limits.error;
          const after = headers['retry-after'];
          if (after !== undefined) retryAfter = String(Array.isArray(after) ? after[0] : after);
        }
      },
      onResponseData(c, chunk) {
        chunks.push(chunk);
        size += chunk.length;
        if (size > limit) {
          settle(undefined, true);
          c.abort(new AnswerTooLarge());
        }
      },
      onResponseEnd() {
        settle(undefined);
      },
      onResponseError(_c, err) {
        settle(err);
      },
    });
  });
}
