// Which failed reads of a queued job are retried, and how long kasir waits before each retry.
import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../http/upstream-error.js';
import { isTransient, retryDelay } from './read-retry.js';

const failed = (status?: number, extra: Partial<UpstreamError['options']> = {}) =>
  new UpstreamError('upstream', 'x', { ...(status ? { status } : {}), beforeFirstByte: true, ...extra });

describe('read retries', () => {
  it('retries 408, 429, 5xx, cut connections and timeouts; never a refusal or a malformed answer', () => {
    for (const s of [408, 429, 500, 502, 503, 504]) expect(isTransient(failed(s))).toBe(true);
    expect(isTransient(failed())).toBe(true);
    expect(isTransient(new UpstreamError('timeout', 'slow', { beforeFirstByte: true }))).toBe(true);
    expect(isTransient(new UpstreamError('bad_request', 'no', { status: 422 }))).toBe(false);
    expect(isTransient(new UpstreamError('upstream', 'unknown status'))).toBe(false);
    expect(isTransient(new Error('x'))).toBe(false);
  });

  it('backs off exponentially with jitter, never sooner than Retry-After, never past the max', () => {
    const policy = { retries: 5, baseMs: 100, maxMs: 5000 };
    for (let attempt = 0; attempt < 4; attempt++) {
      const d = retryDelay(policy, attempt, failed(503));
      expect(d).toBeGreaterThanOrEqual((100 * 2 ** attempt) / 2);
      expect(d).toBeLessThanOrEqual(100 * 2 ** attempt);
    }
    expect(retryDelay(policy, 0, failed(429, { retryAfterMs: 2000 }))).toBe(2000);
    expect(retryDelay(policy, 0, failed(429, { retryAfterMs: 60_000 }))).toBe(5000);
  });
});
