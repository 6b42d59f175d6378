/** Settings of the media models: how queued upstream jobs are polled, how long a call waits, how long a job may run. */
import { z } from 'zod';

const int = (min: number, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max);

export const mediaEnvShape = {
  MEDIA_POLL_FIRST_MS: int(10).default(500),
  MEDIA_POLL_MAX_MS: int(10).default(5000),
  MEDIA_WAIT_MS: int(100).default(600_000),
  MEDIA_JOB_DEADLINE_MS: int(100).default(3_600_000),
  MEDIA_FIRST_BYTE_TIMEOUT_MS: int(100).default(600_000),
  MEDIA_READ_TIMEOUT_MS: int(100).default(30_000),
  MEDIA_READ_RETRIES: int(0, 20).default(5),
  MEDIA_READ_RETRY_BASE_MS: int(1).default(500),
  MEDIA_READ_RETRY_MAX_MS: int(1).default(30_000),
};

export interface MediaConfig {
  /** First wait between two status reads of a queued job; each next one is 1.5× longer, up to `pollMaxMs`. */
  pollFirstMs: number;
  pollMaxMs: number;
  /** How long a call waits for its upstream job before it fails with a timeout (and the job is cancelled). */
  waitMs: number;
  /** An async job (`Prefer: respond-async`) still running this long after submission is given up. */
  jobDeadlineMs: number;
  /** How long a media request that does the work (an image, a transcript, a submit) may take to its first byte. */
  firstByteTimeoutMs: number;
  /** How long one read of a queued job (status, result, cancel) may take before it counts as failed (and is retried). */
  readTimeoutMs: number;
  /** A failed status or result read (429, 5xx, connection) is retried this many times before the job is given up. */
  readRetries: number;
  /** First backoff before such a retry, doubling each time with jitter; no wait is longer than `readRetryMaxMs`. */
  readRetryBaseMs: number;
  readRetryMaxMs: number;
}

export function parseMedia(e: Record<string, unknown>): MediaConfig {
  return {
    pollFirstMs: Number(e.MEDIA_POLL_FIRST_MS),
    pollMaxMs: Number(e.MEDIA_POLL_MAX_MS),
    waitMs: Number(e.MEDIA_WAIT_MS),
    jobDeadlineMs: Number(e.MEDIA_JOB_DEADLINE_MS),
    firstByteTimeoutMs: Number(e.MEDIA_FIRST_BYTE_TIMEOUT_MS),
    readTimeoutMs: Number(e.MEDIA_READ_TIMEOUT_MS),
    readRetries: Number(e.MEDIA_READ_RETRIES),
    readRetryBaseMs: Number(e.MEDIA_READ_RETRY_BASE_MS),
    readRetryMaxMs: Number(e.MEDIA_READ_RETRY_MAX_MS),
  };
}
