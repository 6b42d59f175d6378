// What the media contract tests share: kasir's adapter for a provider, pointed at a recording server, and the
// MediaCall kasir's offer would hand it, so an official SDK's request and kasir's for one operation can be compared.
import { expect } from 'vitest';
import type { ProviderConfig, ProviderName } from '../../src/config/providers.js';
import { CallAbort } from '../../src/http/call-signal.js';
import type { PollTiming } from '../../src/providers/media/queue.js';
import type { FileValue, MediaCall, MediaProvider, MediaQueue } from '../../src/providers/media/types.js';
import { UpstreamPools } from '../../src/providers/pools.js';
import { UpstreamClient } from '../../src/providers/upstream-client.js';
import { pathOf, type Recorded, type Recorder } from '../support/recorder.js';

export const TIMING: PollTiming = { firstMs: 5, maxMs: 10, deadlineMs: 5_000 };

/** The provider's settings and an HTTP client for them, at `baseUrl`. */
export function adapterDeps(name: ProviderName, baseUrl: string, apiKey: string) {
  const pools = new UpstreamPools();
  const config: ProviderConfig = { apiKey, baseUrl };
  const client = new UpstreamClient({ provider: name, baseUrl, timeoutMs: 5_000, pools, secret: apiKey });
  return { config, client, close: () => pools.close() };
}

/** The call kasir's media offer makes for a validated input. */
export function mediaCall(
  endpoint: string,
  produces: MediaCall['produces'],
  input: Record<string, unknown>,
  files: Record<string, FileValue | FileValue[]> = {},
): MediaCall {
  return { endpoint, produces, input, files, signal: new CallAbort(), requestId: 'req_contract' };
}

/**
 * Drives the SDK's operation, then kasir's, against `rec`, and checks that each sent one request with the same
 * method, path and auth header (`authHeader`); returns both for the operation's own checks. kasir's call may fail
 * on the recorder's canned answer: only its request is compared.
 */
export async function compareRequests(
  rec: Recorder,
  sdkCall: () => Promise<unknown>,
  kasirCall: () => Promise<unknown>,
  authHeader = 'authorization',
): Promise<{ fromSdk: Recorded; fromKasir: Recorded }> {
  rec.clear();
  await sdkCall().catch(() => {});
  const [fromSdk] = rec.requests;
  rec.clear();
  await kasirCall().catch(() => {});
  const [fromKasir] = rec.requests;
  if (!fromSdk) throw new Error('the SDK sent nothing');
  if (!fromKasir) throw new Error('kasir sent nothing');
  expect(fromKasir.method).toBe(fromSdk.method);
  expect(pathOf(fromKasir)).toBe(pathOf(fromSdk));
  expect(fromKasir.headers[authHeader]).toBeDefined();
  expect(fromKasir.headers[authHeader]).toBe(fromSdk.headers[authHeader]);
  return { fromSdk, fromKasir };
}

/** The adapter's queue, cancel included (every queued adapter compared here has one). */
export function queueOf(provider: MediaProvider): Required<MediaQueue> {
  const queue = provider.queue;
  if (!queue?.cancel) throw new Error(`${provider.name} has no queue with a cancel`);
  return queue as Required<MediaQueue>;
}
