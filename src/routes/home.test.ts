// GET / (a JSON index for agents, a landing page for browsers), the favicon and /llms.txt.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKasir, type TestKasir } from '../../test/support/app.js';

describe('GET / and /favicon.ico', () => {
  let kasir: TestKasir;
  beforeAll(async () => {
    kasir = await startKasir('sqlite');
  });
  afterAll(() => kasir.close());

  it('answers agents with a JSON index of the documents to read', async () => {
    const res = await kasir.app.request('/', { headers: { accept: 'application/json' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('vary')).toMatch(/accept/i);
    const body = (await res.json()) as { name: string; rails: string[]; links: Record<string, string> };
    expect(body.name).toBe('kasir');
    expect(body.rails).toEqual(['prepaid']);
    expect(body.links).toMatchObject({
      skill: 'http://kasir.test/skill.md',
      llms: 'http://kasir.test/llms.txt',
      openapi: 'http://kasir.test/openapi.json',
      dashboard: 'http://kasir.test/dashboard',
    });
    // No Accept at all (curl, most agents): JSON too.
    expect((await kasir.app.request('/')).headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('answers browsers with a landing page linking the same documents, running no script', async () => {
    const res = await kasir.app.request('/', {
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await res.text();
    for (const href of ['/dashboard', '/skill.md', '/llms.txt', '/openapi.json']) {
      expect(html).toContain(`href="http://kasir.test${href}"`);
    }
    expect(html).not.toContain('<script');
  });

  it('serves an ICO favicon', async () => {
    const res = await kasir.app.request('/favicon.ico');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/x-icon');
    const bytes = Buffer.from(await res.arrayBuffer());
    // ICONDIR: reserved 0, type 1 (icon), one image; its payload a PNG.
    expect([...bytes.subarray(0, 6)]).toEqual([0, 0, 1, 0, 1, 0]);
    expect(bytes.subarray(22, 26).toString('latin1')).toBe('\x89PNG');
  });

  it('serves /llms.txt listing the catalog entries that can run here', async () => {
    const res = await kasir.app.request('/llms.txt');
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/^# kasir\n\n> /);
    expect(text).toContain('[Agent onboarding](http://kasir.test/skill.md)');
    // Free of keys, a default install runs the tools that need no upstream key.
    expect(text).toMatch(/- \[tools\/[a-z-]+\]\(http:\/\/kasir\.test\/v1\/schema\?model=tools%2F/);
  });
});
