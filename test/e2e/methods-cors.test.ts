// A wrong method on a served path answers 405 with `Allow` (an unserved path stays 404), and CORS (CORS_ORIGINS,
// default `*`) answers browsers on the public routes — Hono's and the Node server's own lanes alike — and never on
// the dashboard, the admin API or /metrics.

import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server.js';
import { startKasir, type TestKasir } from '../support/app.js';

const ORIGIN = 'https://agent.example';
const ADMIN_TOKEN = 'methods-cors-admin-token';

describe('wrong methods', () => {
  let kasir: TestKasir;
  beforeAll(async () => {
    kasir = await startKasir('sqlite', { ADMIN_TOKEN });
  });
  afterAll(() => kasir?.close());

  it.each([
    ['GET', '/v1/chat/completions', 'POST'],
    ['GET', '/x402/openai/gpt-4.1-mini', 'POST'],
    ['PUT', '/v1/tools/embed', 'POST'],
    ['DELETE', '/v1/models', 'GET, HEAD'],
    ['POST', '/skill.md', 'GET, HEAD'],
    ['PATCH', '/v1/price', 'GET, HEAD, POST'],
  ])('%s %s answers 405 with Allow: %s', async (method, path, allow) => {
    const res = await kasir.app.request(path, { method });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe(allow);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('method_not_allowed');
    expect(body.error.message).toContain(allow);
  });

  it('answers 404 for a path no route serves', async () => {
    const res = await kasir.app.request('/v1/nothing-here', { method: 'GET' });
    expect(res.status).toBe(404);
    expect(res.headers.get('allow')).toBeNull();
  });
});

describe('CORS', () => {
  let kasir: TestKasir;
  let server: RunningServer;
  beforeAll(async () => {
    kasir = await startKasir('sqlite', { ADMIN_TOKEN, RATE_LIMIT_PER_MINUTE: '0' });
    server = await startServer(kasir.app, '127.0.0.1', 0);
  });
  afterAll(async () => {
    await server?.stop(1000);
    await kasir?.close();
  });

  const send = (method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
    request(`${server.url}${path}`, { method, headers: { origin: ORIGIN, ...headers }, body });

  it('answers a preflight on a paid route, allowing the payment headers', async () => {
    const res = await send('OPTIONS', '/v1/chat/completions', {
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type, payment-signature',
    });
    await res.body.dump();
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(String(res.headers['access-control-allow-methods'])).toContain('POST');
    expect(String(res.headers['access-control-allow-headers'])).toContain('payment-signature');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('lets a browser read the 402 of a lane-served route and of a Hono route', async () => {
    const body = JSON.stringify({
      model: 'openai/gpt-4.1-mini',
      messages: [{ role: 'user', content: 'hi' }],
    });
    for (const path of ['/v1/chat/completions', '/v1/tools/embed']) {
      const res = await send('POST', path, { 'content-type': 'application/json' }, body);
      await res.body.dump();
      expect(res.headers['access-control-allow-origin'], path).toBe('*');
      expect(String(res.headers['access-control-expose-headers']), path).toContain('www-authenticate');
      expect(String(res.headers['access-control-expose-headers']), path).toContain(
        'x-service-charged-micro-usd',
      );
    }
  });

  it('is never on the dashboard, the admin API or /metrics', async () => {
    for (const [method, path] of [
      ['GET', '/dashboard'],
      ['GET', '/v1/admin/accounts/x'],
      ['OPTIONS', '/v1/admin/accounts'],
      ['GET', '/metrics'],
    ] as const) {
      const res = await send(method, path, { authorization: `Bearer ${ADMIN_TOKEN}` });
      await res.body.dump();
      expect(res.headers['access-control-allow-origin'], `${method} ${path}`).toBeUndefined();
    }
  });
});

describe('CORS_ORIGINS', () => {
  it('allows only the origins listed, and none when set to none', async () => {
    const listed = await startKasir('sqlite', { CORS_ORIGINS: `${ORIGIN}, https://other.example` });
    const off = await startKasir('sqlite', { CORS_ORIGINS: 'none' });
    try {
      const ask = (k: TestKasir, origin: string) => k.app.request('/v1/models', { headers: { origin } });
      expect((await ask(listed, ORIGIN)).headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect(
        (await ask(listed, 'https://evil.example')).headers.get('access-control-allow-origin'),
      ).toBeNull();
      expect((await ask(off, ORIGIN)).headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await listed.close();
      await off.close();
    }
  });

  it('refuses a value that is not an origin', async () => {
    await expect(startKasir('sqlite', { CORS_ORIGINS: 'https://a.example/path' })).rejects.toThrow(
      /CORS_ORIGINS: "https:\/\/a.example\/path" is not an origin/,
    );
  });
});
