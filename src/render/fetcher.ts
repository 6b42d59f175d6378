/** The safe fetcher the renderers read callers' URLs with, built from the FETCH_* settings. */
import type { Config } from '../config/load.js';
import { SafeFetcher } from '../fetch/safe-fetch.js';

export function rendererFetcher(config: Config): SafeFetcher {
  return new SafeFetcher({
    allowedHosts: config.fetch.allowedHosts,
    maxRedirects: config.fetch.maxRedirects,
    timeoutMs: config.fetch.timeoutMs,
    extraCa: config.fetch.extraCa,
  });
}

/** The most a background or meme image may weigh: 10 MiB, or FETCH_MAX_BYTES when that is lower. */
export function imageMaxBytes(config: Config): number {
  return Math.min(config.fetch.maxBytes, 10 * 1024 * 1024);
}
