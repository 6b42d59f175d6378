/** Renders every thrown error in the one error shape; unknown errors become 500 and are logged with the request id. */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { AppEnv } from './env.js';
import { ApiError } from './errors.js';
import type { Logger } from './logger.js';

/** The API error to answer `err` with; an unexpected one is logged first. */
export function errorAnswer(err: unknown, log: Logger, reqId: string): ApiError {
  const apiError = toApiError(err);
  if (apiError.status >= 500 && apiError.code === 'internal_error') {
    log.error({ reqId, err }, 'unhandled error');
  }
  return apiError;
}

export function renderError(log: Logger) {
  return (err: Error, c: Context<AppEnv>): Response => {
    const apiError = errorAnswer(err, log, c.get('requestId'));
    for (const [k, v] of Object.entries(apiError.headers)) c.header(k, v);
    c.header('content-type', apiError.contentType);
    return c.body(JSON.stringify(apiError.toBody()), apiError.status as 400);
  };
}

function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof HTTPException) {
    if (err.status === 413) return new ApiError('payload_too_large', err.message || 'request body too large');
    if (err.status === 400) return new ApiError('invalid_json', err.message || 'malformed request');
    if (err.status === 404) return new ApiError('not_found', err.message || 'not found');
    return new ApiError('internal_error', err.message || 'error');
  }
  return new ApiError('internal_error', 'internal error; the request id identifies it in the logs');
}
