// Every URL a discovery document lists is routable: the resources of /.well-known/x402, every OpenAPI path (with
// sample parameters), every URL and route of /skill.md and /llms.txt, and the links of the JSON index at GET /.
// None answers 404 (a sample id may be unknown to its route, never the route to the router) nor a 5xx — on a
// default install and on one with the x402 rail on.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useBaseWalletKasir } from '../support/evm-wallet.js';
import { type PaidKasir, startPaidKasir } from '../support/paid.js';

const BASE = 'http://kasir.test';
const PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** Sample values for the path parameters of the OpenAPI paths. */
function fill(path: string, mediaKey: string): string {
  const name = path.startsWith('/v1/recipes/')
    ? 'prompt-to-video'
    : path.startsWith('/dashboard/assets/')
      ? 'dashboard.css'
      : 'embed';
  return path
    .replace('{model}', 'openai/gpt-4.1-mini')
    .replace('{name}', name)
    .replace('{key}', mediaKey)
    .replace('{id}', 'unknown-id');
}

interface Answer {
  status: number;
  text: string;
}

async function call(kasir: PaidKasir, method: string, url: string): Promise<Answer> {
  const path = url.startsWith(BASE) ? url.slice(BASE.length) || '/' : url;
  const res = await kasir.app.request(path, {
    method,
    ...(method === 'GET' ? {} : { body: '{}', headers: { 'content-type': 'application/json' } }),
  });
  return { status: res.status, text: await res.text() };
}

/** A literal URL must not be a 404 at all; a templated one may name an unknown sample id, never an unknown route. */
function expectRoutable(label: string, a: Answer, templated: boolean): void {
  expect(a.status, `${label}: ${a.text.slice(0, 200)}`).toBeLessThan(500);
  if (templated) expect(a.text, `${label} is no route`).not.toMatch(/"no route /);
  else expect(a.status, `${label}: ${a.text.slice(0, 200)}`).not.toBe(404);
}

function describeDiscovery(label: string, kasirOf: () => PaidKasir, expectX402: boolean) {
  describe(`every URL the discovery documents list (${label})`, () => {
    let mediaKey = '';
    beforeAll(async () => {
      const up = await kasirOf().app.request('/v1/media', {
        method: 'POST',
        headers: { 'content-type': 'image/png' },
        body: Buffer.from(PIXEL_PNG, 'base64'),
      });
      expect(up.status).toBe(201);
      mediaKey = ((await up.json()) as { url: string }).url.split('/').at(-1) ?? '';
    });

    it('/.well-known/x402: every resource takes a POST', async () => {
      const doc = (await (await kasirOf().app.request('/.well-known/x402')).json()) as {
        resources: string[];
      };
      if (expectX402) expect(doc.resources.length).toBeGreaterThan(10);
      else expect(doc.resources).toEqual([]);
      for (const url of doc.resources) expectRoutable(url, await call(kasirOf(), 'POST', url), false);
    });

    it('/openapi.json: every path and method, with sample parameters', async () => {
      const doc = (await (await kasirOf().app.request('/openapi.json')).json()) as {
        paths: Record<string, Record<string, unknown>>;
      };
      for (const [path, item] of Object.entries(doc.paths)) {
        for (const method of Object.keys(item).filter((m) => ['get', 'post'].includes(m))) {
          const url = `${fill(path, mediaKey)}${method === 'get' ? '?model=openai/gpt-4.1-mini&intent=image' : ''}`;
          expectRoutable(
            `${method} ${url}`,
            await call(kasirOf(), method.toUpperCase(), url),
            path.includes('{id}'),
          );
        }
      }
    });

    it('/skill.md: every URL and every route it lists', async () => {
      const md = await (await kasirOf().app.request('/skill.md')).text();
      // URLs with a placeholder (`<key>`, `<id>`) are templates, not links.
      const urls = [...md.matchAll(/http:\/\/kasir\.test[^\s`"');]*/g)]
        .map((m) => m[0])
        .filter((u) => !u.includes('<'));
      expect(urls.length).toBeGreaterThan(5);
      for (const url of urls)
        expectRoutable(url, await call(kasirOf(), 'GET', url.replace(/[.,]$/, '')), false);
      const routes = [...md.matchAll(/^- `(GET|POST) ([^`]+)`/gm)].map(
        (m) => [m[1] ?? '', m[2] ?? ''] as const,
      );
      expect(routes.length).toBeGreaterThan(20);
      for (const [method, path] of routes) {
        expectRoutable(
          `${method} ${path}`,
          await call(kasirOf(), method, fill(path, mediaKey)),
          path.includes('{id}'),
        );
      }
    });

    it('/llms.txt: every link, and GET / for agents: every link', async () => {
      const llms = await kasirOf().app.request('/llms.txt');
      expect(llms.headers.get('content-type')).toMatch(/^text\/markdown/);
      const links = [...(await llms.text()).matchAll(/\]\((http[^)]+)\)/g)].map((m) => m[1] ?? '');
      expect(links.length).toBeGreaterThan(10);
      const index = (await (await kasirOf().app.request('/')).json()) as { links: Record<string, string> };
      for (const url of [...links, ...Object.values(index.links)]) {
        expectRoutable(url, await call(kasirOf(), 'GET', url), false);
      }
    });

    it('lists both MCP endpoints in skill.md, llms.txt, the landing page, its JSON index and openapi.json', async () => {
      const app = kasirOf().app;
      const docs = {
        'skill.md': await (await app.request('/skill.md')).text(),
        'llms.txt': await (await app.request('/llms.txt')).text(),
        'GET / (HTML)': await (await app.request('/', { headers: { accept: 'text/html' } })).text(),
        'GET / (JSON)': await (await app.request('/')).text(),
      };
      for (const [name, text] of Object.entries(docs)) {
        expect(text, name).toContain(`${BASE}/mcp`);
        expect(text, name).toContain(`${BASE}/x402/mcp`);
      }
      const openapi = (await (await app.request('/openapi.json')).json()) as {
        paths: Record<string, unknown>;
      };
      expect(Object.keys(openapi.paths)).toEqual(expect.arrayContaining(['/mcp', '/x402/mcp']));
    });
  });
}

describe('a default install', () => {
  let kasir: PaidKasir;
  beforeAll(async () => {
    kasir = await startPaidKasir('sqlite');
  });
  afterAll(() => kasir?.stop());
  describeDiscovery('no wallet rail', () => kasir, false);
});

describe('an install with x402 on Base', () => {
  const ctx = useBaseWalletKasir();
  describeDiscovery('x402 on', () => ctx.kasir, true);
});
