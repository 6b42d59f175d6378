/** Free entries (the lookups) through the checkout: validated and run like any entry, with no payment step at all. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type PaidKasir, startPaidKasir } from '../../test/support/paid.js';
import { isFree, isReadOnly, methodOf } from '../catalog/types.js';
import { LOOKUPS } from '../lookups/index.js';
import { MADHABS, PRAYER_METHODS } from '../lookups/prayer-times.js';
import { RUPIAH_CASES } from '../lookups/terbilang.js';
import { lookupName } from '../offers/lookup.js';

let kasir: PaidKasir;
beforeAll(async () => {
  kasir = await startPaidKasir('sqlite');
});
afterAll(() => kasir.stop());

const PAYMENT_HEADERS = /^(x-service-|payment-|x-payment|www-authenticate)/i;

describe('the lookups in the catalog', () => {
  it('are six free, read-only GET entries, each with its module, found by id like any entry', () => {
    const { catalog, offers } = kasir.deps;
    const lookups = catalog.lookups();
    expect(lookups.map((l) => l.id).sort()).toEqual(
      ['prayer-times', 'qris', 'terbilang', 'verify-nik', 'verify-npwp', 'wilayah'].map((n) => `tools/${n}`),
    );
    for (const entry of lookups) {
      expect(isFree(entry)).toBe(true);
      expect(entry).toMatchObject({ kind: 'lookup', method: 'GET', readOnly: true, path: `/v1/${entry.id}` });
      expect(entry.input.type).toBe('object');
      expect(LOOKUPS[lookupName(entry)], entry.id).toBeDefined();
      expect(catalog.find(entry.id)).toBe(entry);
      expect(offers.available(entry)).toBe(true);
      expect(offers.offerFor(entry).entry).toBe(entry);
      expect(catalog.quote(entry, {}, 'wallet').costMicroUsd).toBe(0);
      expect(catalog.quote(entry, {}, 'prepaid').costMicroUsd).toBe(0);
    }
    expect(catalog.offered()).toEqual([...catalog.entries(), ...lookups]);
    expect(catalog.entries().some(isFree)).toBe(false);
  });

  it('are offered by the registry like any entry, flagged free and read-only', () => {
    const offered = kasir.deps.offers.offered();
    const lookups = offered.filter(isFree);
    expect(lookups.map((e) => e.id).sort()).toEqual(
      kasir.deps.catalog
        .lookups()
        .map((l) => l.id)
        .sort(),
    );
    for (const e of lookups) {
      expect(isReadOnly(e)).toBe(true);
      expect(methodOf(e)).toBe('GET');
    }
    const paid = offered.filter((e) => !isFree(e));
    expect(paid.length).toBeGreaterThan(0);
    expect(paid.some(isReadOnly)).toBe(false);
    expect(paid.every((e) => methodOf(e) === 'POST')).toBe(true);
  });

  it('state the enums their modules read', () => {
    const props = (id: string) =>
      kasir.deps.catalog.find(id)?.input.properties as Record<string, { enum?: unknown[] }>;
    expect(props('tools/prayer-times').method?.enum).toEqual([...PRAYER_METHODS]);
    expect(props('tools/prayer-times').madhab?.enum).toEqual([...MADHABS]);
    expect(props('tools/terbilang').case?.enum).toEqual([...RUPIAH_CASES]);
  });
});

describe('a free call', () => {
  it('asks no payment and states none, with a key or without', async () => {
    const { accountId, key } = await kasir.fundedKey(1_000_000);
    const headerSets: Array<Record<string, string>> = [
      {},
      bearer(key),
      { 'x-max-price': 'not a price', 'idempotency-key': 'k' },
    ];
    for (const headers of headerSets) {
      const res = await kasir.app.request('/v1/tools/terbilang?n=12', { headers });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        number: 12,
        formatted: '12',
        terbilang: 'dua belas',
        rupiah: 'Dua Belas Rupiah',
      });
      expect([...res.headers.keys()].filter((h) => PAYMENT_HEADERS.test(h))).toEqual([]);
      expect(res.headers.get('content-type')).toBe('application/json');
    }
    const refused = await kasir.app.request('/v1/tools/terbilang?n=x', { headers: bearer(key) });
    expect(refused.status).toBe(400);
    expect([...refused.headers.keys()].filter((h) => PAYMENT_HEADERS.test(h))).toEqual([]);
    expect(await kasir.balance(accountId)).toEqual({ balance: 1_000_000, held: 0 });
  });

  it('refuses a parameter given twice, as the schema reads a list of strings', async () => {
    const res = await kasir.app.request('/v1/tools/terbilang?n=1&n=2');
    expect(res.status).toBe(400);
    expect(
      ((await res.json()) as { error: { details: Array<{ field: string }> } }).error.details[0]?.field,
    ).toBe('n');
  });

  it('is counted in /metrics by offer and outcome', async () => {
    const served = async () => {
      const text = await (await kasir.app.request('/metrics')).text();
      const line = text
        .split('\n')
        .find((l) => l.startsWith('kasir_free_calls_total{offer="tools/wilayah",outcome="served"}'));
      return line ? Number(line.split(' ').at(-1)) : 0;
    };
    const before = await served();
    expect((await kasir.app.request('/v1/tools/wilayah?kode=32')).status).toBe(200);
    expect(await served()).toBe(before + 1);
  });

  it('answers POST on a lookup with 405 naming GET', async () => {
    const res = await kasir.app.request('/v1/tools/wilayah', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
  });
});

describe('the catalog routes read the lookups like any entry', () => {
  it('/v1/schema gives the input schema and /v1/price a quote of 0', async () => {
    const schema = (await (await kasir.app.request('/v1/schema?model=tools/verify-nik')).json()) as {
      required: string[];
      props: Record<string, unknown>;
    };
    expect(schema.required).toEqual(['nik']);
    expect(Object.keys(schema.props)).toEqual(['nik', 'birth_date', 'gender']);
    const price = (await (await kasir.app.request('/v1/price?model=tools/wilayah&q=Bandung')).json()) as {
      costMicroUsd: number;
    };
    expect(price.costMicroUsd).toBe(0);
  });

  it('/v1/models lists them as free, read-only GET calls', async () => {
    const list = (await (await kasir.app.request('/v1/models')).json()) as {
      tools: Array<{ id: string }>;
      lookups: Array<Record<string, unknown>>;
    };
    expect(list.tools.some((t) => t.id === 'tools/wilayah')).toBe(false);
    expect(list.lookups).toHaveLength(6);
    expect(list.lookups.find((l) => l.id === 'tools/qris')).toMatchObject({
      category: 'lookup',
      method: 'GET',
      path: '/v1/tools/qris',
      available: true,
      free: true,
      readOnly: true,
      price: { minMicroUsd: 0, maxMicroUsd: 0 },
    });
  });

  it('/llms.txt lists them with GET', async () => {
    const text = await (await kasir.app.request('/llms.txt')).text();
    expect(text).toContain('GET /v1/tools/prayer-times');
  });

  it('/openapi.json documents their query parameters from the catalog schema', async () => {
    const doc = (await (await kasir.app.request('/openapi.json')).json()) as {
      paths: Record<string, { get?: { parameters?: Array<Record<string, unknown>>; responses: object } }>;
    };
    const op = doc.paths['/v1/tools/prayer-times']?.get;
    expect(op?.parameters?.find((p) => p.name === 'days')).toMatchObject({
      in: 'query',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: 31, default: 1 },
    });
    expect(JSON.stringify(op?.parameters)).not.toContain('errorMessage');
    expect(Object.keys(op?.responses ?? {})).toEqual(['200', '400', '429']);
    expect(Object.keys(doc.paths['/v1/tools/wilayah']?.get?.responses ?? {})).toEqual([
      '200',
      '400',
      '404',
      '429',
    ]);
  });
});
