// bufferedRequest: an upstream answer read whole, its size limits, and aborts.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bufferedRequest } from './buffered.js';

/** A local upstream whose answer depends on the path; it records requests whose connection closed early. */
function upstream() {
  const cutShort: string[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    res.on('close', () => {
      if (!res.writableFinished) cutShort.push(req.url ?? '');
    });
    if (req.url === '/chunks') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"a":');
      setTimeout(() => res.end('[1,2,3]}'), 5);
    } else if (req.url === '/error') {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('x'.repeat(10_000));
    } else if (req.url === '/big') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const tick = setInterval(() => res.write('y'.repeat(1024)), 1);
      res.on('close', () => clearInterval(tick));
    } else if (req.url === '/slow') {
      setTimeout(() => res.end('{}'), 2_000);
    } else {
      res.end('{}');
    }
  });
  return { server, cutShort };
}

describe('bufferedRequest', () => {
  const { server, cutShort } = upstream();
  let pool: Pool;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    pool = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  afterAll(async () => {
    await pool.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  const limits = { ok: 4096, error: 100 };
  const get = (path: string, signal = new AbortController().signal, headersTimeout = 10_000) =>
    bufferedRequest(pool, { method: 'GET', path, headersTimeout }, signal, limits);

  it('resolves with the status and the whole body, however it was split', async () => {
    const answer = await get('/chunks');
    expect(answer.statusCode).toBe(200);
    expect(answer.truncated).toBe(false);
    expect(JSON.parse(answer.body.toString('utf8'))).toEqual({ a: [1, 2, 3] });
  });

  it('keeps only the start of an error body, and of a 2xx body past its limit (then cuts the connection)', async () => {
    const error = await get('/error');
    expect(error).toMatchObject({ statusCode: 500, truncated: true });
    expect(error.body.toString('utf8')).toBe('x'.repeat(100));

    const big = await get('/big');
    expect(big).toMatchObject({ statusCode: 200, truncated: true });
    expect(big.body.length).toBe(4096);
    await expect.poll(() => cutShort.includes('/big')).toBe(true);
  });

  it('rejects with the abort reason when aborted while waiting, and stops the upstream request', async () => {
    const controller = new AbortController();
    const pending = get('/slow', controller.signal);
    setTimeout(() => controller.abort(new Error('caller left')), 50);
    await expect(pending).rejects.toThrow('caller left');
    await expect.poll(() => cutShort.includes('/slow')).toBe(true);
  });

  it('rejects at once with an already aborted signal', async () => {
    const controller = new AbortController();
    controller.abort(new Error('gone before'));
    await expect(get('/', controller.signal)).rejects.toThrow('gone before');
  });

  it("passes undici's timeout errors on with their codes", async () => {
    await expect(get('/slow', undefined, 100)).rejects.toMatchObject({ code: 'UND_ERR_HEADERS_TIMEOUT' });
  });
});
