import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { readJsonObject } from './body.js';
import type { AppEnv } from './env.js';
import { ApiError } from './errors.js';

function appWithLimit(limit: number) {
  const app = new Hono<AppEnv>();
  app.post('/echo', async (c) => c.json(await readJsonObject(c, limit)));
  app.onError((err, c) =>
    err instanceof ApiError
      ? c.json(err.toBody(), err.status as 400)
      : c.json({ unexpected: String(err) }, 500),
  );
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
