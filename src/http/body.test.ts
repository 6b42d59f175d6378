// readJsonObject: JSON object bodies, their problems and the size limit, in memory and on a Node server's
// request stream.
import { type AddressInfo, connect } from 'node:net';
import { Readable } from 'node:stream';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJsonObject } from './body.js';
import type { AppEnv } from './env.js';
import { ApiError } from './errors.js';

function appWithLimit(limit: number, seen: unknown[] = []) {
  const app = new Hono<AppEnv>();
  app.post('/echo', async (c) => c.json(await readJsonObject(c, limit)));
  app.onError((err, c) => {
    seen.push(err);
    return err instanceof ApiError
      ? c.json(err.toBody(), err.status as 400)
      : c.json({ unexpected: String(err) }, 500);
  });
  return app;
}

describe('readJsonObject', () => {
  const app = appWithLimit(64);
  const post = (body: string) =>
    app.request('/echo', { method: 'POST', body, headers: { 'content-type': 'application/json' } });

  it('parses a JSON object', async () => {
    const res = await post('{"a":1}');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ a: 1 });
  });

  it('names the problem in malformed JSON', async () => {
    const res = await post('{"a":');
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('invalid_json');
    expect(body.error.message).toMatch(/malformed JSON body: .+/);
  });

  it('refuses an empty body, an array and a scalar', async () => {
    for (const raw of ['', '[1]', '42', 'null']) {
      const res = await post(raw);
      expect(res.status, raw).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_json');
    }
  });

  it('refuses a body over the limit with 413', async () => {
    const res = await post(JSON.stringify({ text: 'x'.repeat(100) }));
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
  });
});

describe('readJsonObject on a Node server (the request stream itself)', () => {
  let server: ReturnType<typeof serve>;
  let url = '';
  const seen: unknown[] = [];
  beforeAll(async () => {
    server = serve({ fetch: appWithLimit(64, seen).fetch, hostname: '127.0.0.1', port: 0 });
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/echo`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const post = async (body: string | AsyncIterable<Buffer>) => {
    const sent = typeof body === 'string' ? body : Readable.from(body);
    const res = await request(url, {
      method: 'POST',
      body: sent,
      headers: { 'content-type': 'application/json' },
    });
    return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
  };

  it('reads a body sent in several chunks', async () => {
    async function* parts() {
      yield Buffer.from('{"a":');
      await new Promise((r) => setTimeout(r, 5));
      yield Buffer.from('[1,2]}');
    }
    expect(await post(parts())).toEqual({ status: 200, body: { a: [1, 2] } });
  });

  it('answers 413 for a chunked body that grows past the limit, and keeps the connection usable', async () => {
    async function* parts() {
      for (let i = 0; i < 10; i++) yield Buffer.from(`{"pad":"${'x'.repeat(20)}"}`);
    }
    const res = await post(parts());
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ error: { code: 'payload_too_large' } });
    expect(await post('{"b":true}')).toEqual({ status: 200, body: { b: true } });
  });

  it('treats a caller that hangs up mid-body as an incomplete request, not a failure of kasir', async () => {
    const { port } = server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    seen.length = 0;
    socket.write(
      'POST /echo HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 40\r\n\r\n{"a":',
    );
    await new Promise((r) => setTimeout(r, 20));
    socket.destroy();
    await expect.poll(() => seen.length).toBe(1);
    expect(seen[0]).toBeInstanceOf(ApiError);
    expect(seen[0]).toMatchObject({ code: 'invalid_input' });
  });
});
