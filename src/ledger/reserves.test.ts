// Balance leases on each database: calls served from a lease, charges written in batches with their usage
// rows, releases, failures of the write, and what a crashed instance leaves to the sweeper.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { DB_TARGETS, useTestDb } from '../../test/support/app.js';
import { fundedAccount } from '../../test/support/ledger.js';
import { getBalance, sweepExpiredHolds, type UsageInsert } from './books.js';
import { InsufficientBalanceError } from './errors.js';
import { ledgerTotals } from './history.js';
import { type Reservation, Reserves } from './reserves.js';

const usage = (accountId: string, charged: number): UsageInsert => ({
  created_at: new Date().toISOString(),
  request_id: 'req',
  rail: 'prepaid',
  account_id: accountId,
  key_id: null,
  payer: null,
  offer_id: 'test/offer',
  quote_micro_usd: 100,
  charged_micro_usd: charged,
  status: charged > 0 ? 'charged' : 'voided',
  http_status: charged > 0 ? 200 : 502,
  latency_ms: 1,
  error_code: null,
});
const call = { keyId: null, offerId: 'test/offer', requestId: 'req' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Captures a call and commits its charge, as the checkout does right before the answer is written. */
async function take(c: Reservation, u: UsageInsert) {
  const taken = await c.capture(u);
  taken.commit();
  return taken.balance;
}

describe.each(DB_TARGETS)('balance leases on %s', (target) => {
  const store = useTestDb(target);

  const funded = (amount: number) => fundedAccount(store.db, amount);
  const rows = (accountId: string) =>
    store.db.kysely
      .selectFrom('holds')
      .select(['kind', 'status', 'amount_micro_usd', 'used_micro_usd'])
      .where('account_id', '=', accountId)
      .orderBy('kind', 'desc')
      .execute();
  const usageRows = (accountId: string) =>
    store.db.kysely.selectFrom('usage_records').selectAll().where('account_id', '=', accountId).execute();
  const reserves = (max = 1_000, idleMs = 60_000) =>
    new Reserves(store.db, { maxMicroUsd: max, idleMs, ttlSeconds: 600 });

  it('serves calls from one lease and writes their charges with their usage rows in one batch', async () => {
    const id = await funded(10_000);
    const r = reserves(1_000);
    const calls = await Promise.all(Array.from({ length: 5 }, () => r.reserve(id, 100, call)));
    // One grant of the maximum (the balance covers two), held in the database.
    expect(await rows(id)).toEqual([
      { kind: 'lease', status: 'open', amount_micro_usd: 1_000, used_micro_usd: 0 },
    ]);
    expect(calls.map((c) => c.balanceAfterCharge)).toEqual([9_900, 9_900, 9_900, 9_900, 9_900]);
    const receipts = await Promise.all(calls.map((c) => take(c, usage(id, 100))));
    // Each receipt states the balance after its own charge; the charges reach the database right after.
    expect(receipts.map((b) => b.balanceMicroUsd)).toEqual([9_900, 9_800, 9_700, 9_600, 9_500]);
    await r.flush();
    expect(await getBalance(store.db, id)).toMatchObject({ balanceMicroUsd: 9_500, heldMicroUsd: 500 });
    expect(await usageRows(id)).toHaveLength(5);
    expect(r.view(await getBalance(store.db, id))).toMatchObject({
      heldMicroUsd: 0,
      availableMicroUsd: 9_500,
    });
    await r.close();
    expect(await getBalance(store.db, id)).toMatchObject({ balanceMicroUsd: 9_500, heldMicroUsd: 0 });
    expect(await ledgerTotals(store.db, id)).toEqual({ balance: 9_500, held: 0 });
    expect(await rows(id)).toEqual([
      { kind: 'lease', status: 'released', amount_micro_usd: 1_000, used_micro_usd: 500 },
    ]);
  });

  it('writes a batch of more charges than one statement takes: every entry and usage row once, balances in order', async () => {
    const id = await funded(100_000);
    const r = reserves(10_000);
    const calls = await Promise.all(Array.from({ length: 70 }, () => r.reserve(id, 10, call)));
    await Promise.all(calls.map((c, i) => take(c, { ...usage(id, 10), request_id: `req-${i}` })));
    await r.flush();
    expect((await usageRows(id)).map((u) => u.request_id).sort()).toEqual(
      Array.from({ length: 70 }, (_, i) => `req-${i}`).sort(),
    );
    const captures = await store.db.kysely
      .selectFrom('ledger_entries')
      .select(['amount_micro_usd', 'balance_after_micro_usd'])
      .where('account_id', '=', id)
      .where('kind', '=', 'capture')
      .orderBy('id')
      .execute();
    // Each entry states the balance right after its own charge.
    expect(captures.map((e) => [Number(e.amount_micro_usd), Number(e.balance_after_micro_usd)])).toEqual(
      Array.from({ length: 70 }, (_, i) => [-10, 100_000 - 10 * (i + 1)]),
    );
    await r.close();
    expect(await ledgerTotals(store.db, id)).toEqual({ balance: 99_300, held: 0 });
  });

  it('returns a released call to the lease, charges nothing and still writes the usage row', async () => {
    const id = await funded(1_000);
    const r = reserves(1_000);
    const c = await r.reserve(id, 300, call);
    const b = await c.release(usage(id, 0));
    expect(b.balanceMicroUsd).toBe(1_000);
    await r.flush();
    expect((await usageRows(id)).map((u) => u.status)).toEqual(['voided']);
    await r.close();
    expect(await getBalance(store.db, id)).toMatchObject({ balanceMicroUsd: 1_000, heldMicroUsd: 0 });
    expect(await ledgerTotals(store.db, id)).toEqual({ balance: 1_000, held: 0 });
  });

  it('keeps a charge held while its write fails, and writes it once the database works again', async () => {
    const id = await funded(10_000);
    const failures: Array<{ leaseId: string; calls: number; microUsd: number }> = [];
    const r = new Reserves(store.db, {
      maxMicroUsd: 1_000,
      idleMs: 60_000,
      ttlSeconds: 600,
      onWriteError: (_err, detail) => failures.push(detail),
    });
    const c = await r.reserve(id, 100, call);
    // A real failure of the database: the table the charge writes into is gone for a while.
    await sql`ALTER TABLE usage_records RENAME TO usage_records_away`.execute(store.db.kysely);
    try {
      expect((await take(c, usage(id, 100))).balanceMicroUsd).toBe(9_900);
      await expect.poll(() => failures.length, { timeout: 2_000 }).toBeGreaterThan(0);
      expect(failures[0]).toMatchObject({ calls: 1, microUsd: 100 });
      // Nothing is written and the money stays held in the lease, so nothing else can spend it.
      expect(await getBalance(store.db, id)).toMatchObject({ balanceMicroUsd: 10_000, heldMicroUsd: 1_000 });
    } finally {
      await sql`ALTER TABLE usage_records_away RENAME TO usage_records`.execute(store.db.kysely);
    }
    await r.flush();
    expect(await getBalance(store.db, id)).toMatchObject({ balanceMicroUsd: 9_900, heldMicroUsd: 900 });
    expect(await usageRows(id)).toHaveLength(1);
    await r.close();
    expect(await getBalance(store.db, id)).toMatchObject({ balanceMicroUsd: 9_900, heldMicroUsd: 0 });
    expect(await ledgerTotals(store.db, id)).toEqual({ balance: 9_900, held: 0 });
  });

  it('lets exactly what the balance covers through', async () => {
    const id = await funded(37 * 100);
    const r = reserves(1_000_000);
    const outcomes = await Promise.allSettled(Array.from({ length: 300 }, () => r.reserve(id, 37, call)));
    const granted = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    expect(granted).toHaveLength(100);
    for (const o of outcomes)
      if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(InsufficientBalanceError);
    await Promise.all(granted.map((c) => take(c, usage(id, 37))));
    await r.close();
    expect(await getBalance(store.db, id)).toMatchObject({ balanceMicroUsd: 0, heldMicroUsd: 0 });
    expect(await ledgerTotals(store.db, id)).toEqual({ balance: 0, held: 0 });
  });

  it('takes only what a call lacks near the end of a balance, so two instances strand nothing', async () => {
    const id = await funded(37 * 100);
    const a = reserves(1_000);
    const b = reserves(1_000);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 300 }, (_, i) => (i % 2 ? a : b).reserve(id, 37, call)),
    );
    const granted = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    expect(granted).toHaveLength(100);
    await Promise.all(granted.map((c) => take(c, usage(id, 37))));
    await Promise.all([a.close(), b.close()]);
    expect(await getBalance(store.db, id)).toMatchObject({ balanceMicroUsd: 0, heldMicroUsd: 0 });
    expect(await ledgerTotals(store.db, id)).toEqual({ balance: 0, held: 0 });
  });

  it('tells the caller what is available, counting what its own lease still has', async () => {
    const id = await funded(250);
    const r = reserves(1_000);
    const first = await r.reserve(id, 200, call);
    const refused = await r.reserve(id, 100, call).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InsufficientBalanceError);
    expect(refused).toMatchObject({ needed: 100, available: 50, balance: 250 });
    await first.release(usage(id, 0));
    await r.close();
  });

  it('gives an idle lease back, and a debit can take what this instance had leased', async () => {
    const id = await funded(5_000);
    const r = reserves(2_000, 100);
    await take(await r.reserve(id, 100, call), usage(id, 100));
    await r.flush();
    expect(await getBalance(store.db, id)).toMatchObject({ heldMicroUsd: 1_900 });
    await r.returnAccount(id);
    expect(await getBalance(store.db, id)).toMatchObject({ balanceMicroUsd: 4_900, heldMicroUsd: 0 });
    await take(await r.reserve(id, 100, call), usage(id, 100));
    await sleep(400);
    expect(await getBalance(store.db, id)).toMatchObject({ balanceMicroUsd: 4_800, heldMicroUsd: 0 });
    await r.close();
  });

  it('leaves a crashed instance’s lease to the sweeper: the unused part returns, written charges stay', async () => {
    const id = await funded(10_000);
    const writeErrors: string[] = [];
    const crashed = new Reserves(store.db, {
      maxMicroUsd: 2_000,
      idleMs: 60_000,
      ttlSeconds: 600,
      onWriteError: (err) => writeErrors.push(String(err)),
    });
    await take(await crashed.reserve(id, 300, call), usage(id, 300));
    await crashed.flush();
    const running = await crashed.reserve(id, 200, call); // never settled: the process "dies" here
    expect(running.amountMicroUsd).toBe(200);
    expect(await getBalance(store.db, id)).toMatchObject({ balanceMicroUsd: 9_700, heldMicroUsd: 1_700 });
    const swept = await sweepExpiredHolds(store.db, new Date(Date.now() + 3_600_000));
    expect(swept.released).toBeGreaterThanOrEqual(1);
    expect(await getBalance(store.db, id)).toMatchObject({ balanceMicroUsd: 9_700, heldMicroUsd: 0 });
    expect(await ledgerTotals(store.db, id)).toEqual({ balance: 9_700, held: 0 });
    // The lease is gone under the instance: the call it then answers is debited from the balance directly (once),
    // and a new call gets a new lease.
    await take(running, usage(id, 200));
    await crashed.flush();
    expect(writeErrors).toEqual([]);
    expect(await getBalance(store.db, id)).toMatchObject({ balanceMicroUsd: 9_500, heldMicroUsd: 0 });
    await take(await crashed.reserve(id, 100, call), usage(id, 100));
    await crashed.close();
    expect(await getBalance(store.db, id)).toMatchObject({ balanceMicroUsd: 9_400, heldMicroUsd: 0 });
    expect(await ledgerTotals(store.db, id)).toEqual({ balance: 9_400, held: 0 });
    expect(await usageRows(id)).toHaveLength(3);
  });

  it('charges nothing until the charge is committed, then writes it like any other', async () => {
    const id = await funded(10_000);
    const r = reserves(1_000);
    const c = await r.reserve(id, 400, call);
    const taken = await c.capture(usage(id, 400));
    expect(taken.balance.balanceMicroUsd).toBe(9_600);
    await sleep(60);
    await r.flush();
    // Captured but not committed: the answer has not left, nothing is written.
    expect(await getBalance(store.db, id)).toMatchObject({ balanceMicroUsd: 10_000 });
    taken.commit();
    taken.commit();
    await r.close();
    expect(await getBalance(store.db, id)).toMatchObject({ balanceMicroUsd: 9_600, heldMicroUsd: 0 });
    expect(await ledgerTotals(store.db, id)).toEqual({ balance: 9_600, held: 0 });
  });

  it('places a hold per call when leases are off, and for a spend-capped key', async () => {
    const id = await funded(10_000);
    for (const [r, capped] of [
      [reserves(0), false],
      [reserves(1_000), true],
    ] as const) {
      const c = await r.reserve(id, 300, { ...call, keySpendCapped: capped });
      expect((await rows(id)).filter((h) => h.kind === 'call' && h.status === 'open')).toHaveLength(1);
      const another = await r.reserve(id, 300, call);
      await another.release(usage(id, 0));
      expect((await take(c, usage(id, 300))).balanceMicroUsd).toBeLessThan(10_000);
      await r.close();
    }
    expect(await getBalance(store.db, id)).toMatchObject({ balanceMicroUsd: 9_400, heldMicroUsd: 0 });
    expect(await ledgerTotals(store.db, id)).toEqual({ balance: 9_400, held: 0 });
    expect((await usageRows(id)).filter((u) => u.status === 'charged')).toHaveLength(2);
  });
});
