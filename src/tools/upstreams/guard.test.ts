// The tools' private-address guard on their upstreams (FETCH_ALLOWED_HOSTS its exemption), and Retry-After
// parsing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeFrankfurter } from '../../../test/fakes/frankfurter.js';
import type { FakeJsonUpstream } from '../../../test/fakes/json-upstream.js';
import { loadConfig } from '../../config/load.js';
import { CallAbort } from '../../http/call-signal.js';
import { UpstreamError } from '../../http/upstream-error.js';
import { retryAfterMs } from '../../providers/retry-after.js';
import { isPublicAddress } from './guard.js';
import { JsonUpstream } from './json-upstream.js';
import { createToolHttp } from './tool-http.js';

describe('the tools’ private-address guard', () => {
  it('tells public addresses from loopback, private, link-local, mapped and reserved ones', () => {
    for (const ip of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111']) expect(isPublicAddress(ip)).toBe(true);
    for (const ip of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      'not an address',
    ]) {
      expect(isPublicAddress(ip), ip).toBe(false);
    }
  });

  let fake: FakeJsonUpstream;
  beforeAll(async () => {
    fake = await startFakeFrankfurter();
  });
  afterAll(() => fake.close());

  const upstreamAt = (baseUrl: string, trusted: string) => {
    const config = loadConfig({ FETCH_ALLOWED_HOSTS: trusted, TOOL_TIMEOUT_MS: '1000' });
    return new JsonUpstream('frankfurter', baseUrl, createToolHttp(config.tools, config.fetch.allowedHosts));
  };

  it('refuses an upstream on a loopback address, by literal or by a name that resolves to one', async () => {
    const port = new URL(fake.url).port;
    for (const base of [fake.url, `http://localhost:${port}/v1`]) {
      const err = await upstreamAt(base, '')
        .get('/latest', {}, new CallAbort())
        .catch((e: unknown) => e);
      expect(err, base).toBeInstanceOf(UpstreamError);
      expect(String((err as Error).message)).toContain('non-public address');
    }
    expect(fake.requests).toHaveLength(0);
  });

  it('reaches a host:port FETCH_ALLOWED_HOSTS lists, and that host on no other port', async () => {
    const listed = `127.0.0.1:${new URL(fake.url).port}`;
    const answer = await upstreamAt(fake.url, listed).get<{ base: string }>('/latest', {}, new CallAbort());
    expect(answer.base).toBe('EUR');
    const elsewhere = await upstreamAt(fake.url, '127.0.0.1:1')
      .get('/latest', {}, new CallAbort())
      .catch((e: unknown) => e);
    expect(elsewhere).toBeInstanceOf(UpstreamError);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-25T10:00:00Z');
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs('Wed, 25 Nov 2026 10:00:07 GMT', now)).toBe(7000);
    expect(retryAfterMs('soon', now)).toBeUndefined();
  });
});
