/** Maps a failed run to the API error the caller sees; every one of them means nothing was charged. */
import { ApiError } from '../http/errors.js';
import { UpstreamError } from '../http/upstream-error.js';

export function runFailure(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof UpstreamError) {
    const said = err.options.upstreamMessage ? `: ${err.options.upstreamMessage}` : '';
    switch (err.kind) {
      case 'bad_request':
        return new ApiError('invalid_input', `the upstream refused the input${said}; nothing was charged`, [
          { field: '(body)', message: err.options.upstreamMessage ?? err.message },
        ]);
      case 'timeout':
        return new ApiError('upstream_timeout', `the upstream did not answer in time; nothing was charged`);
      case 'not_configured':
        return new ApiError('not_configured', `${err.message}; nothing was charged`);
      default:
        return new ApiError('upstream_error', `the upstream failed (${err.message}); nothing was charged`);
    }
  }
  return new ApiError('internal_error', 'the call failed inside kasir; nothing was charged');
}
