// Usage records by settlement: whether a wallet payment is charged is found through an index, not a scan.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { DB_TARGETS, useTestDb } from '../../test/support/app.js';
import { walletUsageCharged } from './wallet-payments.js';

describe.each(DB_TARGETS)('usage records by settlement on %s', (target) => {
  const store = useTestDb(target);

  const usage = (requestId: string, txId: string | null, charged: number) => ({
    created_at: new Date().toISOString(),
    request_id: requestId,
    rail: txId ? 'x402' : 'prepaid',
    account_id: null,
    key_id: null,
    payer: null,
    offer_id: 'tool:qr',
    quote_micro_usd: 1000,
    charged_micro_usd: charged,
    status: charged > 0 ? ('charged' as const) : ('voided' as const),
    http_status: charged > 0 ? 200 : 502,
    latency_ms: 1,
    error_code: null,
    tx_id: txId,
  });

  it('finds whether a settlement is charged, through an index rather than a scan of every record', async () => {
    const { db } = store;
    const rows = Array.from({ length: 200 }, (_, i) =>
      usage(`req_${i}`, i % 10 === 0 ? `0xtx${i}` : null, 1000),
    );
    rows.push(usage('req_refused', '0xrefused', 0));
    await db.kysely.insertInto('usage_records').values(rows).execute();
    expect(await walletUsageCharged(db, '0xtx20')).toBe(true);
    expect(await walletUsageCharged(db, '0xrefused')).toBe(false);
    expect(await walletUsageCharged(db, '0xnever')).toBe(false);

    const query = sql`select request_id from usage_records where tx_id = ${'0xtx20'} and charged_micro_usd > 0`;
    if (db.kind === 'sqlite') {
      const plan = await sql<{ detail: string }>`explain query plan ${query}`.execute(db.kysely);
      expect(plan.rows.map((r) => r.detail).join('\n')).toContain('usage_records_tx');
    } else {
      // A table this small would be scanned anyway: plan as if scans were dear, to see the index is usable.
      await db.kysely.transaction().execute(async (tx) => {
        await sql`set local enable_seqscan = off`.execute(tx);
        const plan = await sql<{ 'QUERY PLAN': string }>`explain ${query}`.execute(tx);
        expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toContain('usage_records_tx');
      });
    }
  });
});
