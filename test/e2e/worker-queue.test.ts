// A full worker-thread queue end to end: card and face calls are refused with 503 `overloaded` and Retry-After
// before any payment (no charge, no hold, the balance unchanged), also when the queue fills while a call is
// already running (its fetch done, its work not yet submitted); once the queue drains, the same call is served.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workerPool } from '../../src/workers/pool.js';
import { type HttpsSite, startHttpsSite } from '../fakes/https-site.js';
import { bearer, type PaidKasir, startPaidKasir } from '../support/paid.js';
import { HOLD } from '../support/worker-task.js';

const photo = (name: string) =>
  `data:image/jpeg;base64,${readFileSync(path.join(import.meta.dirname, '../fixtures/faces', name)).toString('base64')}`;

function gradient(): Buffer {
  const png = new PNG({ width: 64, height: 48 });
  png.data.fill(200);
  return PNG.sync.write(png);
}

describe('a full worker queue', () => {
  let kasir: PaidKasir;
  let site: HttpsSite;
  let key: string;
  let accountId: string;
  /** Tasks the image site holds the queue with while it answers (the meme's fetch). */
  let fillOnFetch: Array<Promise<unknown>> = [];

  const pool = () => workerPool(kasir.config.workers);
  /** One task on the one thread and WORKER_QUEUE_MAX waiting: the queue is full for about `ms`. */
  const fill = (ms: number) => [
    pool().run(HOLD, { ms }),
    pool().run(HOLD, { ms: 1 }),
    pool().run(HOLD, { ms: 1 }),
  ];

  beforeAll(async () => {
    site = await startHttpsSite((req, res) => {
      if (req.url === '/photo.png') {
        fillOnFetch = fill(5000);
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end(gradient());
      } else {
        res.writeHead(404);
        res.end();
      }
    });
    kasir = await startPaidKasir('sqlite', {
      WORKER_THREADS: '1',
      WORKER_QUEUE_MAX: '2',
      FETCH_ALLOWED_HOSTS: site.hostPort,
      FETCH_CA_FILE: site.caFile,
    });
    ({ key, accountId } = await kasir.fundedKey(10_000_000));
    await pool().run(HOLD, { ms: 1 }); // the thread is up
  }, 60_000);
  afterAll(async () => {
    await kasir?.stop();
    await site?.close();
  });

  const call = (tool: string, body: Record<string, unknown>) =>
    kasir.app.request(`/v1/tools/${tool}`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', ...bearer(key) },
    });

  /** Calls a tool that must be refused as overloaded, charging nothing; `beforePayment`: and holding nothing. */
  async function refused(tool: string, body: Record<string, unknown>, beforePayment: boolean) {
    const before = await kasir.balance(accountId);
    const holds = await kasir.holdCount(accountId);
    const res = await call(tool, body);
    const text = await res.text();
    expect(res.status, text).toBe(503);
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'overloaded' } });
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(res.headers.get('x-service-charged-micro-usd') ?? '0').toBe('0');
    expect(await kasir.balance(accountId)).toEqual(before);
    if (beforePayment) expect(await kasir.holdCount(accountId)).toBe(holds);
  }

  it('refuses card and face calls before payment, then serves them once the queue drains', async () => {
    const held = fill(5000);
    await refused('quote-card', { quote: 'Sabar itu indah.', author: 'Pepatah' }, true);
    await refused('code-image', { title: 'a.ts', code: 'const a = 1;' }, true);
    await refused('face-detect', { image_base64: photo('man-1.jpg') }, true);
    // No payment was even asked for: a call without a key is refused the same way, not with a 402.
    const anonymous = await kasir.app.request('/v1/tools/quote-card', {
      method: 'POST',
      body: JSON.stringify({ quote: 'Sabar itu indah.', author: 'Pepatah' }),
      headers: { 'content-type': 'application/json' },
    });
    expect(anonymous.status).toBe(503);
    await Promise.all(held);

    const before = await kasir.balance(accountId);
    const served = await call('quote-card', { quote: 'Sabar itu indah.', author: 'Pepatah' });
    expect(served.status).toBe(200);
    expect((await kasir.balance(accountId)).balance).toBeLessThan(before.balance);
  }, 60_000);

  it('charges nothing when the queue fills between the admission and the work', async () => {
    await refused(
      'meme',
      { image: `https://${site.hostPort}/photo.png`, top: 'atas', bottom: 'bawah' },
      false,
    );
    expect(fillOnFetch).toHaveLength(3);
    await Promise.all(fillOnFetch);
  }, 60_000);
});
