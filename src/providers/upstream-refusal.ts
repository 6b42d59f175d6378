/**
 * What an upstream's non-2xx answer means: the caller's input, kasir's own credentials, or a failure that may be
 * retried; with the upstream's message (one line, our key removed) for the caller.
 */

import { UpstreamError } from '../http/upstream-error.js';
import { retryAfterMs } from './retry-after.js';

/** The longest upstream message passed on to a caller. */
const MESSAGE_LIMIT = 500;

export interface StatusFailure {
  provider: string;
  status: number;
  /** The upstream's error body as text (JSON or not). */
  body: string;
  secret?: string | undefined;
  isCredentialFailure?: ((status: number, errorBody: unknown) => boolean) | undefined;
  /** The answer's `Retry-After` header, if any. */
  retryAfter?: string | undefined;
}

/**
 * Classifies a non-2xx answer. 400/404/413/422 are the caller's input (`bad_request`, with the upstream's
 * message); 401/403 mean kasir's own key is wrong, which is not the caller's fault and is never echoed;
 * everything else (408, 429, 5xx, …) is an `upstream` failure that may be retried or fallen back from.
 */
export function classifyStatus(failure: StatusFailure): UpstreamError {
  const { provider, status } = failure;
  const parsed = parseJson(failure.body);
  if (status === 401 || status === 403 || failure.isCredentialFailure?.(status, parsed)) {
    return new UpstreamError(
      'upstream',
      `${provider} rejected kasir's credentials (HTTP ${status}); the caller did nothing wrong, the operator must check the provider key`,
      { status, beforeFirstByte: true },
    );
  }
  const message = redact(upstreamMessageOf(parsed, failure.body), failure.secret);
  if (status === 400 || status === 404 || status === 413 || status === 422) {
    return new UpstreamError(
      'bad_request',
      `${provider} refused the request (HTTP ${status})${message ? `: ${message}` : ''}`,
      { status, beforeFirstByte: true, ...(message ? { upstreamMessage: message } : {}) },
    );
  }
  const after = retryAfterMs(failure.retryAfter);
  return new UpstreamError(
    'upstream',
    `${provider} failed (HTTP ${status})${message ? `: ${message}` : ''}`,
    {
      status,
      beforeFirstByte: true,
      ...(message ? { upstreamMessage: message } : {}),
      ...(after !== undefined ? { retryAfterMs: after } : {}),
    },
  );
}

/** The human message inside the usual error bodies: `{error: {message}}`, `{error: "…"}`, `{message}`, `{detail}`. */
export function upstreamMessageOf(parsed: unknown, raw: string): string {
  let message: unknown;
  if (parsed && typeof parsed === 'object') {
    const body = parsed as Record<string, unknown>;
    const error = body.error;
    if (typeof error === 'string') message = error;
    else if (error && typeof error === 'object') message = (error as Record<string, unknown>).message;
    message ??= body.message ?? validationDetail(body.detail) ?? body.detail;
  } else if (raw && !/^\s*</.test(raw)) {
    message = raw;
  }
  if (typeof message !== 'string') return '';
  const oneLine = message.replace(/\s+/g, ' ').trim();
  return oneLine.length > MESSAGE_LIMIT ? `${oneLine.slice(0, MESSAGE_LIMIT)}…` : oneLine;
}

/**
 * A validation error's list of problems (FastAPI's 422 `detail`, as fal answers it: `[{ loc, msg, type }]`) as one
 * line naming each field: `body.prompt: field required; body.image_size: …`. Undefined for any other shape.
 */
function validationDetail(detail: unknown): string | undefined {
  if (!Array.isArray(detail) || detail.length === 0) return undefined;
  const parts = detail.map((item) => {
    const { loc, msg } = (item ?? {}) as { loc?: unknown; msg?: unknown };
    const where = Array.isArray(loc) ? loc.map(String).join('.') : '';
    const what = typeof msg === 'string' ? msg : JSON.stringify(item);
    return where ? `${where}: ${what}` : what;
  });
  return parts.join('; ');
}

/** Removes our key from a text, wherever an upstream or a library may have echoed it. */
export function redact(text: string, secret: string | undefined): string {
  return secret && secret.length >= 4 ? text.split(secret).join('[redacted]') : text;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
