/** Settings of the media models: how queued upstream jobs are polled, how long a call waits, how long a job may run. */
import { int, type SettingsArea } from './setting.js';

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

export const mediaSettings: SettingsArea = {
  name: 'media',
  shape: mediaEnvShape,
  rows: [
    {
      vars: ['MEDIA_POLL_FIRST_MS', 'MEDIA_POLL_MAX_MS'],
      default: '`500`, `5000`',
      meaning: 'Polling of queued upstream jobs: first wait, growing 1.5× per read up to the max.',
    },
    {
      vars: ['MEDIA_WAIT_MS'],
      default: '`600000`',
      meaning:
        'How long a synchronous media call waits for its upstream job before a 504 (the job is cancelled upstream).',
    },
    {
      vars: ['MEDIA_JOB_DEADLINE_MS'],
      default: '`3600000`',
      meaning:
        'How long an async job (`Prefer: respond-async`) may run before it is given up and its money released.',
    },
    {
      vars: ['MEDIA_FIRST_BYTE_TIMEOUT_MS'],
      default: '`600000`',
      meaning:
        'How long a media request that does the work (an image or speech made, a file transcribed, a job submitted) may take to its first byte; `UPSTREAM_TIMEOUT_MS` then bounds the gap between two chunks of its body.',
    },
    {
      vars: ['MEDIA_READ_TIMEOUT_MS'],
      default: '`30000`',
      meaning:
        'How long one read of a queued job (status, result, cancel) may take; a read past it counts as failed and is retried. The whole job is bounded by `MEDIA_WAIT_MS` (synchronous) and `MEDIA_JOB_DEADLINE_MS` (async).',
    },
    {
      vars: ['MEDIA_READ_RETRIES'],
      default: '`5`',
      meaning:
        "A queued job's status or result read that fails with 408, 429, 5xx or a broken connection is retried this many times; then the job is given up, cancelled upstream and not charged (`kasir_upstream_read_retries_total`, `kasir_upstream_read_give_ups_total` in /metrics).",
    },
    {
      vars: ['MEDIA_READ_RETRY_BASE_MS', 'MEDIA_READ_RETRY_MAX_MS'],
      default: '`500`, `30000`',
      meaning:
        "Backoff of those retries: doubling from the base with jitter, never sooner than the upstream's `Retry-After`, never longer than the max.",
    },
  ],
};
