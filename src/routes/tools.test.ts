// POST /v1/tools/{name} on each database: unknown tools, tools this server lacks a setting for, and the body
// limit, all answered before any charge.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS } from '../../test/support/app.js';
import { type PaidKasir, startPaidKasir } from '../../test/support/paid.js';

describe.each(DB_TARGETS)('POST /v1/tools/{name} on %s', (db) => {
  let kasir: PaidKasir;
  beforeAll(async () => {
    kasir = await startPaidKasir(db);
  });
  afterAll(() => kasir.stop());

  const call = (name: string, body: unknown, key?: string) =>
    kasir.app.request(`/v1/tools/${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify(body),
    });

  it('answers 404 with the closest ids for an unknown tool, before any challenge', async () => {
    const res = await call('serch', { q: 'x' });
    expect(res.status).toBe(404);
    expect(JSON.stringify(await res.json())).toContain('tools/search');
  });

  it('answers 503 naming what a tool lacks on this server, before any challenge or charge', async () => {
    const { accountId, key } = await kasir.fundedKey(1_000_000);
    const unpaid = await call('search', { q: 'kasir' });
    expect(unpaid.status).toBe(503);
    const res = await call('search', { q: 'kasir' }, key);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: { code: 'not_configured' } });
    expect(await kasir.balance(accountId)).toEqual({ balance: 1_000_000, held: 0 });
    const listed = (await (await kasir.app.request('/v1/models')).json()) as {
      tools: Array<{ id: string; available: boolean }>;
    };
    expect(listed.tools.find((t) => t.id === 'tools/search')?.available).toBe(false);
  });

  it('refuses a body over the tools limit with 413 before reading it whole', async () => {
    const res = await call('search', { q: 'x'.repeat(9 * 1024 * 1024) });
    expect(res.status).toBe(413);
  });
});
