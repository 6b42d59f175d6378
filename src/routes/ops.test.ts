// GET /healthz: 200 with every store answering; 503 naming the store that failed, or that stalled, without waiting
// on it for longer than the check's own deadline.
import { afterEach, describe, expect, it } from 'vitest';
import { startKasir, type TestKasir } from '../../test/support/app.js';

describe('GET /healthz', () => {
  let kasir: TestKasir | undefined;
  afterEach(async () => {
    await kasir?.close();
    kasir = undefined;
  });

  const health = async (k: TestKasir) => {
    const started = performance.now();
    const res = await k.app.request('/healthz');
    return { status: res.status, body: await res.json(), ms: performance.now() - started };
  };

  it('answers 200 with each store checked', async () => {
    kasir = await startKasir('sqlite');
    const { status, body } = await health(kasir);
    expect(status).toBe(200);
    expect(body).toEqual({ status: 'ok', checks: { database: 'ok', kv: 'ok' } });
  });

  it('answers 503 naming a store that fails', async () => {
    kasir = await startKasir('sqlite', {}, (deps) => {
      deps.kv.get = async () => {
        throw new Error('connection refused');
      };
    });
    const { status, body } = await health(kasir);
    expect(status).toBe(503);
    expect(body).toEqual({ status: 'degraded', checks: { database: 'ok', kv: 'error: connection refused' } });
  });

  it('answers 503 within its deadline when a store stalls, instead of waiting on it', async () => {
    // A store that never answers, as a host that accepted the connection and stopped.
    kasir = await startKasir('sqlite', {}, (deps) => {
      deps.kv.get = () => new Promise(() => {});
    });
    const { status, body, ms } = await health(kasir);
    expect(status).toBe(503);
    expect(body).toEqual({
      status: 'degraded',
      checks: { database: 'ok', kv: 'error: no answer within 2000 ms' },
    });
    expect(ms).toBeGreaterThanOrEqual(1_900);
    expect(ms).toBeLessThan(5_000);
  });
});
