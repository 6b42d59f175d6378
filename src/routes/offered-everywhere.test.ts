/**
 * One set of what this server offers, read alike by every reader: MCP tools/list, /v1/schema, /v1/consult, /v1/models,
 * /llms.txt and OpenAPI agree on which entries can run here, on a server where most providers are not configured.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKasir, type TestKasir } from '../../test/support/app.js';
import { type CatalogEntry, isFree, methodOf, pathOf } from '../catalog/types.js';

let kasir: TestKasir;
beforeAll(async () => {
  // OpenAI alone: chat models of other providers, media models and tools needing their own keys are not offered.
  kasir = await startKasir('sqlite', { OPENAI_API_KEY: 'sk-test', RATE_LIMIT_PER_MINUTE: '0' });
});
afterAll(() => kasir?.close());

/** Every tool of MCP tools/list, page after page, as the catalog ids it names. */
async function mcpListed(): Promise<Set<string>> {
  const ids = new Set<string>();
  let cursor: string | undefined;
  let id = 0;
  do {
    const res = await kasir.app.request('/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: ++id,
        method: 'tools/list',
        params: cursor ? { cursor } : {},
      }),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    const json = res.headers.get('content-type')?.includes('text/event-stream')
      ? text
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5))
          .join('')
      : text;
    const { result } = JSON.parse(json) as {
      result: { tools: Array<{ _meta: { 'kasir/id': string } }>; nextCursor?: string };
    };
    for (const tool of result.tools) ids.add(tool._meta['kasir/id']);
    cursor = result.nextCursor;
  } while (cursor);
  return ids;
}

async function getJson<T>(path: string): Promise<T> {
  const res = await kasir.app.request(path);
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}

describe('what this server offers', () => {
  it('is one set: MCP tools/list, /v1/schema, /v1/models and /llms.txt agree, entry by entry', async () => {
    const { catalog, offers } = kasir.deps;
    const listed = await mcpListed();
    const offered = new Set(offers.offered().map((e) => e.id));
    expect(listed).toEqual(offered);
    // Some of the catalog is not offered here, and some is: the agreement is not a vacuous one.
    const known: readonly CatalogEntry[] = catalog.offered();
    expect(known.some((e) => !offered.has(e.id))).toBe(true);
    expect(known.some((e) => e.kind === 'model' && offered.has(e.id))).toBe(true);
    expect(known.some((e) => e.kind === 'tool' && !offered.has(e.id))).toBe(true);

    // /v1/schema describes every catalog entry, and says of each whether it can run here: exactly those MCP lists.
    for (const entry of known) {
      const schema = await getJson<{ model: string; available: boolean; unavailableReason?: string }>(
        `/v1/schema?model=${encodeURIComponent(entry.id)}`,
      );
      expect(schema.model).toBe(entry.id);
      expect(schema.available, entry.id).toBe(listed.has(entry.id));
    }

    // /v1/models flags the same entries available, in every one of its lists.
    const models =
      await getJson<
        Record<'models' | 'tools' | 'recipes' | 'lookups', Array<{ id: string; available: boolean }>>
      >('/v1/models');
    const rows = [...models.models, ...models.tools, ...models.recipes, ...models.lookups];
    expect(new Set(rows.filter((r) => r.available).map((r) => r.id))).toEqual(listed);
    expect(rows.map((r) => r.id).sort()).toEqual(known.map((e) => e.id).sort());

    // llms.txt names each offered entry's schema, and no other.
    const llms = await (await kasir.app.request('/llms.txt')).text();
    const named = new Set(
      [...llms.matchAll(/\/v1\/schema\?model=([^)\s]+)\)/g)].map((m) => decodeURIComponent(m[1] ?? '')),
    );
    expect(named).toEqual(listed);
  });

  it('is what /v1/consult answers available, and nothing else', async () => {
    const listed = await mcpListed();
    const intents = [
      'turn a photo into a short video',
      'chat with a language model',
      'jadwal sholat Bandung',
      'exchange rate of rupiah',
      'transcribe speech to text',
      'generate an image from text',
      'search the web',
      'verify an Indonesian NIK',
    ];
    let availableSeen = 0;
    let unavailableSeen = 0;
    for (const intent of intents) {
      const { candidates } = await getJson<{
        candidates: Array<{ model?: string; tool?: string; recipe?: string; available: boolean }>;
      }>(`/v1/consult?intent=${encodeURIComponent(intent)}&limit=20`);
      for (const c of candidates) {
        const id = c.model ?? c.tool ?? c.recipe ?? '';
        expect(c.available, id).toBe(listed.has(id));
        if (c.available) availableSeen++;
        else unavailableSeen++;
      }
    }
    expect(availableSeen).toBeGreaterThan(0);
    expect(unavailableSeen).toBeGreaterThan(0);
  });

  it('is documented in OpenAPI: each offered entry on its route, each free lookup on its own path', async () => {
    const listed = await mcpListed();
    const doc = await getJson<{ paths: Record<string, Record<string, unknown>> }>('/openapi.json');
    const documented = (path: string, method: string) =>
      doc.paths[path]?.[method] !== undefined ||
      (path.startsWith('/v1/tools/') && doc.paths['/v1/tools/{name}']?.[method] !== undefined);
    for (const id of listed) {
      const entry = kasir.deps.catalog.find(id) as CatalogEntry;
      expect(documented(pathOf(entry), methodOf(entry).toLowerCase()), id).toBe(true);
    }
    // The lookups documented are the free entries offered, and each is mounted on its own path.
    const lookupPaths = Object.entries(doc.paths)
      .filter(([path, ops]) => path.startsWith('/v1/tools/') && ops.get !== undefined)
      .map(([path]) => path);
    const offeredLookups = kasir.deps.offers.offered().filter(isFree);
    expect(lookupPaths.sort()).toEqual(offeredLookups.map(pathOf).sort());
    for (const entry of offeredLookups) expect(listed.has(entry.id)).toBe(true);
  });
});
