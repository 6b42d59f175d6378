/**
 * A reference file kasir fetches for itself (SEC's ticker map, IANA's RDAP bootstrap file) is not the caller's
 * request: whatever its upstream answers (a 404 for a moved file, a refused connection), the failure is on the
 * service's side. It is answered 503 `unavailable` naming the file, never as a fault in the caller's input; a
 * timeout stays a 504. Nothing is charged either way.
 */
import { ApiError } from '../../http/errors.js';
import { UpstreamError } from '../../http/upstream-error.js';

export function referenceFileFailure(file: string, err: unknown): unknown {
  if (err instanceof ApiError) return err;
  if (err instanceof UpstreamError && err.kind === 'timeout') return err;
  const why = err instanceof Error ? err.message : String(err);
  return new ApiError(
    'unavailable',
    `kasir could not load ${file} (${why}); the fault is on the service's side, not in the request, and nothing was charged`,
  );
}
