// A caller that hangs up while its tool runs in a worker thread is charged nothing: the thread's task does not stop on
// the caller's signal and finishes, but its answer reaches nobody, so the call is voided (499 client_disconnected)
// as one whose upstream call the hang-up stopped. A caller that waits for its card is charged its quote.
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server.js';
import { workerPool } from '../../src/workers/pool.js';
import { bearer, type PaidKasir, startPaidKasir } from '../support/paid.js';
import { HOLD } from '../support/worker-task.js';

const CARD = { quote: 'Sabar itu indah.', author: 'Pepatah' };

describe('a caller hanging up on a worker-thread tool', () => {
  let kasir: PaidKasir;
  let server: RunningServer;

  beforeAll(async () => {
    kasir = await startPaidKasir('sqlite', { WORKER_THREADS: '1', WORKER_QUEUE_MAX: '4' });
    server = await startServer(kasir.app, '127.0.0.1', 0);
    await workerPool(kasir.config.workers).run(HOLD, { ms: 1 }); // the thread is up
  }, 60_000);
  afterAll(async () => {
    await server?.stop(1000);
    await kasir?.stop();
  });

  const post = (key: string, signal?: AbortSignal) =>
    request(`${server.url}/v1/tools/quote-card`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(key) },
      body: JSON.stringify(CARD),
      signal,
    });

  it('voids the call and holds nothing; a caller that waits is charged as usual', async () => {
    const { accountId, key } = await kasir.fundedKey(1_000_000);
    // A caller that waits: charged the quote (this also loads the card's code and fonts, so the call below reaches
    // the thread pool at once).
    const served = await post(key);
    const text = await served.body.text();
    expect(served.statusCode, text).toBe(200);
    const charged = Number(served.headers['x-service-charged-micro-usd']);
    expect(charged).toBeGreaterThan(0);
    expect(JSON.parse(text).costMicroUsd).toBe(charged);
    const funds = { balance: 1_000_000 - charged, held: 0 };
    expect(await kasir.balance(accountId)).toEqual(funds);

    const pool = workerPool(kasir.config.workers);
    // The one thread is taken, so the card's task waits in the thread pool's queue, past the point where a
    // hang-up could skip it.
    const held = pool.run(HOLD, { ms: 3000 });
    const hangUp = new AbortController();
    const pending = post(key, hangUp.signal);
    for (let i = 0; i < 500 && pool.waiting < 1; i++) await new Promise((r) => setTimeout(r, 5));
    expect(pool.waiting).toBe(1);
    hangUp.abort();
    await expect(pending).rejects.toThrow();
    await held;

    const rows = await kasir.usageRows(accountId, 2, 10_000);
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatchObject({
      status: 'voided',
      charged_micro_usd: 0,
      http_status: 499,
      error_code: 'client_disconnected',
    });
    expect(await kasir.balance(accountId)).toEqual(funds);
  }, 60_000);
});
