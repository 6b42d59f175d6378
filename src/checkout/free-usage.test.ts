/** A free call's usage row: written like a paid call's (batched, never awaited by the call), with nobody charged. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_TARGETS, startKasir, type TestKasir } from '../../test/support/app.js';
import { fundedAccount } from '../../test/support/ledger.js';
import { issueKey } from '../ledger/accounts.js';
import { getBalance } from '../ledger/books.js';

const ADMIN = 'admin-token-for-tests-0123456789';

describe.each(DB_TARGETS)('the usage of a free call on %s', (target) => {
  let kasir: TestKasir;
  beforeAll(async () => {
    kasir = await startKasir(target, { ADMIN_TOKEN: ADMIN, RATE_LIMIT_PER_MINUTE: '0' });
  });
  afterAll(() => kasir.close());

  let n = 0;
  /** GETs `path` under a request id of its own, and returns the answer's status and that id. */
  const call = async (path: string, headers: Record<string, string> = {}) => {
    const requestId = `free-usage-${target}-${++n}`;
    const res = await kasir.app.request(path, { headers: { 'x-request-id': requestId, ...headers } });
    await res.arrayBuffer();
    return { status: res.status, requestId: res.headers.get('x-request-id') ?? requestId };
  };
  const rowsOf = async (requestId: string) => {
    await kasir.deps.reserves.flush();
    return kasir.deps.db.kysely
      .selectFrom('usage_records')
      .selectAll()
      .where('request_id', '=', requestId)
      .execute();
  };

  it('a served lookup writes one row: rail free, no payer, nothing quoted or charged', async () => {
    const { status, requestId } = await call('/v1/tools/terbilang?n=12');
    expect(status).toBe(200);
    const rows = await rowsOf(requestId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      rail: 'free',
      account_id: null,
      key_id: null,
      payer: null,
      offer_id: 'tools/terbilang',
      status: 'free',
      http_status: 200,
      error_code: null,
    });
    expect(Number(rows[0]?.quote_micro_usd)).toBe(0);
    expect(Number(rows[0]?.charged_micro_usd)).toBe(0);
    expect(rows[0]?.latency_ms).toBeGreaterThanOrEqual(0);
    expect(Number.isNaN(Date.parse(rows[0]?.created_at ?? ''))).toBe(false);
  });

  it('a lookup its module refuses writes a voided row with its error; one the schema refuses, none', async () => {
    const refusals = [
      { path: '/v1/tools/terbilang?n=x', status: 400, code: 'invalid_input', offer: 'tools/terbilang' },
      { path: '/v1/tools/wilayah?kode=99', status: 404, code: 'not_found', offer: 'tools/wilayah' },
    ];
    for (const r of refusals) {
      const refused = await call(r.path);
      expect(refused.status).toBe(r.status);
      expect(await rowsOf(refused.requestId)).toMatchObject([
        { rail: 'free', status: 'voided', http_status: r.status, error_code: r.code, offer_id: r.offer },
      ]);
    }
    // Refused before it ran, as a paid call's invalid input is: no row (a paid call's writes none either).
    const invalid = await call('/v1/tools/terbilang?n=1&n=2');
    expect(invalid.status).toBe(400);
    expect(await rowsOf(invalid.requestId)).toEqual([]);
  });

  it('charges nobody, even a caller sending a funded key', async () => {
    const accountId = await fundedAccount(kasir.deps.db, 1_000_000);
    const { key } = await issueKey(kasir.deps.db, accountId);
    const { status, requestId } = await call('/v1/tools/terbilang?n=7', { authorization: `Bearer ${key}` });
    expect(status).toBe(200);
    expect(await rowsOf(requestId)).toMatchObject([{ account_id: null, key_id: null, status: 'free' }]);
    await kasir.deps.reserves.returnUnused();
    expect(await getBalance(kasir.deps.db, accountId)).toMatchObject({
      balanceMicroUsd: 1_000_000,
      heldMicroUsd: 0,
    });
    const entries = await kasir.deps.db.kysely
      .selectFrom('ledger_entries')
      .select('kind')
      .where('account_id', '=', accountId)
      .execute();
    expect(entries.map((e) => e.kind)).toEqual(['credit']);
    const usage = await kasir.deps.db.kysely
      .selectFrom('usage_records')
      .select('id')
      .where('account_id', '=', accountId)
      .execute();
    expect(usage).toEqual([]);
  });

  it('is listed by the admin usage listing under ?rail=free', async () => {
    const { requestId } = await call('/v1/tools/verify-npwp?npwp=01.312.166.0-091.000');
    const res = await kasir.app.request('/v1/admin/usage?rail=free&limit=100', {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(res.status).toBe(200);
    const { items } = (await res.json()) as { items: Array<{ request_id: string; rail: string }> };
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((i) => i.rail === 'free')).toBe(true);
    expect(items.some((i) => i.request_id === requestId)).toBe(true);
  });

  it('answers even when its usage cannot be recorded (logged instead)', async () => {
    const { reserves } = kasir.deps;
    const recordUsage = reserves.recordUsage;
    reserves.recordUsage = () => {
      throw new Error('usage queue broken');
    };
    try {
      expect((await call('/v1/tools/terbilang?n=5')).status).toBe(200);
    } finally {
      reserves.recordUsage = recordUsage;
    }
  });
});
