// The HTTP edge through the whole app: request ids, one error shape, rate limits, logs, metrics, health.
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server.js';
import { DB_TARGETS, startKasir, type TestKasir } from '../support/app.js';
import { REDIS_URL, redisUp } from '../support/services.js';

describe.each(DB_TARGETS)('HTTP edge on %s', (db) => {
  let kasir: TestKasir;
  const lines: Array<Record<string, unknown>> = [];
  beforeAll(async () => {
    kasir = await startKasir(db, { RATE_LIMIT_PER_MINUTE: '3', TRUST_PROXY: 'true' }, (deps) => {
      const sink = new Writable({
        write(chunk, _enc, done) {
          for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
          done();
        },
      });
      deps.log = pino({ level: 'info' }, sink);
    });
  });
  afterAll(() => kasir.close());

  const from = (ip: string, init: RequestInit = {}) => ({
    ...init,
    headers: { 'x-forwarded-for': `203.0.113.9, ${ip}`, ...(init.headers as Record<string, string>) },
  });

  it('puts a request id on every response and keeps a sane one from the caller', async () => {
    const ok = await kasir.app.request('/healthz', from('10.0.0.1'));
    expect(ok.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const missing = await kasir.app.request('/nowhere', from('10.0.0.1'));
    expect(missing.headers.get('x-request-id')).toBeTruthy();
    const kept = await kasir.app.request(
      '/healthz',
      from('10.0.0.2', { headers: { 'x-request-id': 'trace-abc.123' } }),
    );
    expect(kept.headers.get('x-request-id')).toBe('trace-abc.123');
    const replaced = await kasir.app.request(
      '/healthz',
      from('10.0.0.2', { headers: { 'x-request-id': 'bad id\u00ff' } }),
    );
    expect(replaced.headers.get('x-request-id')).not.toBe('bad id\u00ff');
  });

  it('answers an unknown route with 404 JSON, never HTML', async () => {
    const res = await kasir.app.request('/v1/nothing-here', from('10.0.0.3', { method: 'POST' }));
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({
      error: { code: 'not_found', type: 'not_found_error', message: 'no route POST /v1/nothing-here' },
    });
  });

  it('rate-limits per client IP with 429, Retry-After and the error body', async () => {
    const ip = `198.51.100.${Math.floor(Math.random() * 200)}`;
    for (let i = 0; i < 3; i++) expect((await kasir.app.request('/healthz', from(ip))).status).toBe(200);
    const limited = await kasir.app.request('/healthz', from(ip));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(limited.headers.get('x-request-id')).toBeTruthy();
    expect(await limited.json()).toMatchObject({ error: { code: 'rate_limited', details: { limit: 3 } } });
    // Another client is not affected.
    expect((await kasir.app.request('/healthz', from('192.0.2.77'))).status).toBe(200);
  });

  it('logs one line per request with method, path, status, duration and id, and no secrets', async () => {
    lines.length = 0;
    const res = await kasir.app.request(
      '/v1/media/0123456789abcdef0123456789abcdef?nik=3171234567890001',
      from('10.9.9.9', { headers: { authorization: 'Bearer sk_live_supersecret' } }),
    );
    kasir.deps.log.flush();
    await new Promise((r) => setTimeout(r, 10));
    const line = lines.find((l) => l.reqId === res.headers.get('x-request-id'));
    expect(line).toMatchObject({
      method: 'GET',
      path: '/v1/media/0123456789abcdef0123456789abcdef',
      status: 404,
    });
    expect(typeof line?.ms).toBe('number');
    const everything = JSON.stringify(lines);
    expect(everything).not.toContain('supersecret');
    expect(everything).not.toContain('3171234567890001');
  });

  it('exports request counts and latency histograms by route and status', async () => {
    await kasir.app.request('/healthz', from('10.0.1.1'));
    const res = await kasir.app.request('/metrics', from('10.0.1.2'));
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/kasir_http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+/);
    expect(text).toMatch(
      /kasir_http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/healthz",status="200"\}/,
    );
    expect(text).toMatch(/kasir_http_requests_total\{method="GET",route="unmatched",status="404"\}/);
  });

  it('over a real server too, ids, logs and counts every request once, and logs no secrets', async () => {
    const server = await startServer(kasir.app, '127.0.0.1', 0);
    try {
      const get = async (path: string, headers: Record<string, string> = {}) => {
        const res = await request(`${server.url}${path}`, {
          headers: { 'x-forwarded-for': `10.7.${Math.floor(Math.random() * 250)}.1`, ...headers },
        });
        return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
      };
      const healthCount = async () => {
        const metrics = await get('/metrics');
        const m = /kasir_http_requests_total\{method="GET",route="\/healthz",status="200"\} (\d+)/.exec(
          metrics.text,
        );
        return Number(m?.[1] ?? 0);
      };
      const before = await healthCount();
      lines.length = 0;
      const health = await get('/healthz', { 'x-request-id': 'trace-node.1' });
      expect(health.status).toBe(200);
      expect(health.headers['x-request-id']).toBe('trace-node.1');
      const missing = await get('/nowhere?nik=3171234567890001', {
        authorization: 'Bearer sk_live_supersecret',
      });
      expect(missing.status).toBe(404);
      const missingId = missing.headers['x-request-id'];
      expect(missingId).toMatch(/^[0-9a-f-]{36}$/);
      expect(await healthCount()).toBe(before + 1);

      kasir.deps.log.flush();
      await new Promise((r) => setTimeout(r, 10));
      expect(lines.find((l) => l.reqId === 'trace-node.1')).toMatchObject({
        method: 'GET',
        path: '/healthz',
        route: '/healthz',
        status: 200,
      });
      const line = lines.find((l) => l.reqId === missingId);
      expect(line).toMatchObject({ method: 'GET', path: '/nowhere', route: 'unmatched', status: 404 });
      expect(typeof line?.ms).toBe('number');
      expect(lines.filter((l) => l.msg === 'request' && l.reqId === missingId)).toHaveLength(1);
      const everything = JSON.stringify(lines);
      expect(everything).not.toContain('supersecret');
      expect(everything).not.toContain('3171234567890001');
    } finally {
      await server.stop(1000);
    }
  });

  it('serves the paid lane with the same edge and the same answers as the app', async () => {
    const server = await startServer(kasir.app, '127.0.0.1', 0);
    try {
      const ip = `10.8.${Math.floor(Math.random() * 250)}.1`;
      const post = async (path: string, body: string, headers: Record<string, string> = {}) => {
        const res = await request(`${server.url}${path}`, {
          method: 'POST',
          headers: { 'x-forwarded-for': ip, 'content-type': 'application/json', ...headers },
          body,
        });
        return { status: res.statusCode, headers: res.headers, json: await res.body.json() };
      };
      const viaApp = async (path: string, body: string, headers: Record<string, string> = {}) => {
        const res = await kasir.app.request(
          path,
          from(`10.6.${Math.floor(Math.random() * 250)}.1`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...headers },
            body,
          }),
        );
        return { status: res.status, json: await res.json() };
      };
      lines.length = 0;
      const broken = await post('/v1/chat/completions?x=1', '{"model":', { 'x-request-id': 'lane-trace.1' });
      expect(broken.status).toBe(400);
      expect(broken.headers['content-type']).toMatch(/^application\/json/);
      expect(broken.headers['x-request-id']).toBe('lane-trace.1');
      expect(broken.headers['ratelimit-limit']).toBe('3');
      expect(broken.headers['ratelimit-remaining']).toBe('2');
      expect(broken.json).toEqual((await viaApp('/v1/chat/completions', '{"model":')).json);

      const chat = JSON.stringify({
        model: 'openai/gpt-4.1-mini',
        messages: [{ role: 'user', content: 'hi' }],
      });
      const unpaid = await post('/v1/chat/completions', chat);
      expect(unpaid.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      const unpaidViaApp = await viaApp('/v1/chat/completions', chat);
      expect(unpaid.status).toBe(unpaidViaApp.status);
      expect(unpaid.json).toEqual(unpaidViaApp.json);

      await post('/v1/chat/completions', chat);
      const limited = await post('/v1/chat/completions', chat);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(limited.headers['ratelimit-remaining']).toBe('0');
      expect(limited.json).toMatchObject({ error: { code: 'rate_limited', details: { limit: 3 } } });

      // Another method on the lane's path is Hono's: 405 naming the lane's method, in the one error shape.
      const get = await request(`${server.url}/v1/chat/completions`, {
        headers: { 'x-forwarded-for': '10.5.5.5' },
      });
      expect(get.statusCode).toBe(405);
      expect(get.headers.allow).toBe('POST');
      expect(await get.body.json()).toMatchObject({ error: { code: 'method_not_allowed' } });

      kasir.deps.log.flush();
      await new Promise((r) => setTimeout(r, 10));
      for (const answer of [broken, unpaid, limited]) {
        const logged = lines.filter((l) => l.msg === 'request' && l.reqId === answer.headers['x-request-id']);
        expect(logged).toHaveLength(1);
        expect(logged[0]).toMatchObject({
          method: 'POST',
          path: '/v1/chat/completions',
          route: '/v1/chat/completions',
          status: answer.status,
        });
      }
      const metrics = await (await kasir.app.request('/metrics', from('10.0.3.1'))).text();
      expect(metrics).toMatch(
        /kasir_http_requests_total\{method="POST",route="\/v1\/chat\/completions",status="429"\} 1/,
      );
    } finally {
      await server.stop(1000);
    }
  });

  it('reports health, and 503 when the database is gone', async () => {
    const ok = await kasir.app.request('/healthz', from('10.0.2.1'));
    expect(await ok.json()).toEqual({ status: 'ok', checks: { database: 'ok', kv: 'ok' } });
    const other = await startKasir(db);
    await other.deps.db.close();
    const down = await other.app.request('/healthz');
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ status: 'degraded', checks: { kv: 'ok' } });
    await other.close().catch(() => {});
  });
});

describe('rate limit without TRUST_PROXY', () => {
  let kasir: TestKasir;
  afterEach(() => kasir.close());
  it('ignores X-Forwarded-For, so a client cannot pick its own bucket', async () => {
    kasir = await startKasir('sqlite', { RATE_LIMIT_PER_MINUTE: '2' });
    const hits = [];
    for (let i = 0; i < 3; i++) {
      hits.push(
        (await kasir.app.request('/healthz', { headers: { 'x-forwarded-for': `10.1.1.${i}` } })).status,
      );
    }
    expect(hits).toEqual([200, 200, 429]);
  });
  it('is off with RATE_LIMIT_PER_MINUTE=0', async () => {
    kasir = await startKasir('sqlite', { RATE_LIMIT_PER_MINUTE: '0' });
    for (let i = 0; i < 5; i++) expect((await kasir.app.request('/healthz')).status).toBe(200);
  });
});

describe.runIf(redisUp)('rate limit shared across instances through Redis', () => {
  it('counts one client across two kasir instances', async () => {
    const env = { RATE_LIMIT_PER_MINUTE: '4', TRUST_PROXY: 'true', REDIS_URL };
    const a = await startKasir('sqlite', env);
    const b = await startKasir('sqlite', env);
    const ip = `2001:db8::${randomUUID().slice(0, 4)}`;
    const headers = { 'x-forwarded-for': ip };
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await a.app.request('/healthz', { headers })).status);
      statuses.push((await b.app.request('/healthz', { headers })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    await a.close();
    await b.close();
  });
});
