// The discovery documents: openapi.json, the onboarding document and the x402 discovery document.
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKasir, type TestKasir } from '../../test/support/app.js';

/** `/v1/media/:key` (Hono) → `/v1/media/{key}` (OpenAPI). */
const toOpenApiPath = (p: string) => p.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, '{$1}');

describe('discovery documents', () => {
  let kasir: TestKasir;
  beforeAll(async () => {
    kasir = await startKasir('sqlite');
  });
  afterAll(() => kasir.close());

  it('serves a valid OpenAPI 3.1 document', async () => {
    const res = await kasir.app.request('/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('describes every mounted route, with its method', async () => {
    const doc = (await (await kasir.app.request('/openapi.json')).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const mounted = kasir.app.routes
      .filter((r) => r.method !== 'ALL' && r.path !== '/*')
      .map((r) => ({ method: r.method.toLowerCase(), path: toOpenApiPath(r.path) }))
      .filter((r) => r.method !== 'head');
    expect(mounted.length).toBeGreaterThan(5);
    for (const r of mounted) {
      expect(doc.paths[r.path], `${r.method} ${r.path}`).toBeDefined();
      expect(doc.paths[r.path]?.[r.method], `${r.method} ${r.path}`).toBeDefined();
    }
  });

  it('serves the onboarding document, version 1, with discovery, payment and routes', async () => {
    const res = await kasir.app.request('/skill.md');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/markdown/);
    const md = await res.text();
    expect(md).toMatch(/^---\nname: kasir\nversion: 1\n/);
    expect(md).toContain('## 1. Discover');
    expect(md).toContain('## 2. Pay');
    expect(md).toContain('`POST /v1/media`');
    expect(md).toContain('http://kasir.test/v1/consult');
  });

  it('serves the x402 discovery document', async () => {
    const res = await kasir.app.request('/.well-known/x402');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { version: number; resources: string[]; instructions: string };
    expect(body.version).toBe(1);
    expect(Array.isArray(body.resources)).toBe(true);
    expect(body.instructions).toContain('http://kasir.test/skill.md');
  });
});
