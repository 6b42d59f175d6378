// The MCP server's tool list (names, prices, paging, what can be sold), a tool call as its HTTP request, and
// spending caps.
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../catalog/load.js';
import type { CatalogEntry } from '../catalog/types.js';
import type { OfferRegistry } from '../offers/registry.js';
import { requestOf } from './call.js';
import { SpendingCaps } from './spending.js';
import { inputSchemaOf, TOOLS_PAGE_SIZE, ToolList, toolNameOf, toolOf } from './tool-list.js';

const catalog = loadCatalog({ marginPercent: { '*': 0 } });
const everything: OfferRegistry = {
  offerFor: () => {
    throw new Error('not sold here');
  },
  available: () => true,
  unavailableReason: () => undefined,
  offered: () => [...catalog.offered()],
};

/** A free lookup: a catalog entry at zero on every rail, served by GET. */
const freeLookup = catalog.find('tools/terbilang') as CatalogEntry;

describe('the MCP tool list', () => {
  it('names each entry from its id, uniquely, within what MCP names allow', () => {
    const names = catalog.entries().map(toolNameOf);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_.-]{1,128}$/);
    expect(toolNameOf(catalog.find('tools/exchange-rate') as CatalogEntry)).toBe('tools__exchange-rate');
  });

  it("takes a model's input schema without the fields the tool fixes", () => {
    const chat = catalog.find('openai/gpt-4.1-mini') as CatalogEntry;
    const schema = inputSchemaOf(chat);
    expect(schema.type).toBe('object');
    expect(schema.properties).not.toHaveProperty('model');
    expect(schema.properties).not.toHaveProperty('stream');
    expect(schema.required ?? []).not.toContain('model');
    // The catalog's own schema is untouched.
    expect(JSON.stringify(chat.input)).toContain('"stream"');
  });

  it('states the price in the description, and marks a free lookup read-only', () => {
    const paid = toolOf(catalog, catalog.find('tools/exchange-rate') as CatalogEntry);
    expect(paid.description).toMatch(/micro-USD per call with a prepaid key/);
    expect(paid.annotations).toMatchObject({ readOnlyHint: false, openWorldHint: true });
    expect(paid.outputSchema).toMatchObject({ required: ['tool', 'costMicroUsd', 'receipt'] });
    const free = toolOf(catalog, freeLookup);
    expect(free.outputSchema).toBeUndefined();
    expect(free.description).toMatch(/Free/);
    expect(free.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
  });

  it('pages the list by an opaque cursor and refuses a forged one', () => {
    const list = new ToolList(catalog, everything);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = list.page(cursor);
      expect(page.tools.length).toBeLessThanOrEqual(TOOLS_PAGE_SIZE);
      seen.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(catalog.offered().map(toolNameOf));
    expect(() => list.page('bm9wZQ')).toThrow(/invalid cursor/);
  });

  it('lists only what the offer registry can sell, and resolves names and ids to it', () => {
    const onlyTools: OfferRegistry = {
      ...everything,
      available: (e) => e.kind === 'tool',
      offered: () => catalog.offered().filter((e) => e.kind === 'tool'),
    };
    const list = new ToolList(catalog, onlyTools);
    expect(list.all().length).toBe(catalog.tools().length);
    expect(list.entryOf('tools__exchange-rate')?.id).toBe('tools/exchange-rate');
    expect(list.entryOf('tools/exchange-rate')?.id).toBe('tools/exchange-rate');
    expect(list.entryOf('openai__gpt-4.1-mini')).toBeUndefined();
  });
});

describe('a tool call as its HTTP request', () => {
  it('posts a model its arguments with the model named, never as a stream', () => {
    const chat = catalog.find('openai/gpt-4.1-mini') as CatalogEntry;
    const { path, init } = requestOf(chat, { messages: [], stream: true, model: 'x/y' }, {});
    expect(path).toBe('/v1/chat/completions');
    expect(JSON.parse(String(init.body))).toEqual({ messages: [], model: 'openai/gpt-4.1-mini' });
  });

  it('posts a tool to its path, and sends a GET lookup its arguments as the query', () => {
    const tool = catalog.find('tools/exchange-rate') as CatalogEntry;
    expect(requestOf(tool, { from: 'USD' }, {}).path).toBe('/v1/tools/exchange-rate');
    const lookup = requestOf(freeLookup, { n: '1250000' }, { authorization: 'Bearer k' });
    expect(lookup).toMatchObject({ path: '/v1/tools/terbilang?n=1250000', init: { method: 'GET' } });
  });
});

describe('spending caps', () => {
  it('refuses a call above the per-call cap or past the session cap, and says what is left', () => {
    const caps = new SpendingCaps({ perCallMicroUsd: 1000, sessionMicroUsd: 2500 });
    expect(caps.limit()).toBe(1000);
    expect(caps.refusal(1001)).toMatch(/per-call cap/);
    caps.record(1000);
    caps.record(1000);
    expect(caps.limit()).toBe(500);
    expect(caps.refusal(600)).toMatch(/session has 500/);
    expect(caps.refusal(500)).toBeUndefined();
    expect(new SpendingCaps({}).limit()).toBeUndefined();
  });
});
