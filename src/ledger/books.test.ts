// The prepaid books on each database: credits and debits by idempotency key, holds, captures and releases,
// spend caps, key lookup by hash, the hold sweeper and the append-only ledger.
import { describe, expect, it } from 'vitest';
import { DB_TARGETS, useTestDb } from '../../test/support/app.js';
import { chargedUsage, fundedAccount, openLease } from '../../test/support/ledger.js';
import { issueKey, KeyResolver, revokeKey } from './accounts.js';
import {
  adjustBalance,
  captureHold,
  chargeLease,
  getBalance,
  placeHold,
  releaseHold,
  sweepExpiredHolds,
} from './books.js';
import { InsufficientBalanceError, SpendCapExceededError } from './errors.js';
import { ledgerTotals } from './history.js';
import { newId } from './ids.js';

const hold = (accountId: string, amount: number, extra: Partial<Parameters<typeof placeHold>[1]> = {}) => ({
  accountId,
  keyId: null,
  keySpendCapped: false,
  amountMicroUsd: amount,
  offerId: 'test/offer',
  requestId: 'req-1',
  ttlSeconds: 600,
  ...extra,
});

describe.each(DB_TARGETS)('prepaid books on %s', (target) => {
  const store = useTestDb(target);

  const funded = (amount: number) => fundedAccount(store.db, amount);

  it('credits and debits once per idempotency key', async () => {
    const id = await funded(0);
    const first = await adjustBalance(store.db, {
      accountId: id,
      kind: 'credit',
      amountMicroUsd: 5_000_000,
      reason: 'top-up',
      idempotencyKey: 'k1',
    });
    const again = await adjustBalance(store.db, {
      accountId: id,
      kind: 'credit',
      amountMicroUsd: 5_000_000,
      reason: 'top-up',
      idempotencyKey: 'k1',
    });
    expect(first.applied).toBe(true);
    expect(again.applied).toBe(false);
    expect((await getBalance(store.db, id)).balanceMicroUsd).toBe(5_000_000);
    await adjustBalance(store.db, {
      accountId: id,
      kind: 'debit',
      amountMicroUsd: 1_000_000,
      reason: 'fix',
      idempotencyKey: 'd1',
    });
    expect((await getBalance(store.db, id)).balanceMicroUsd).toBe(4_000_000);
    expect(await ledgerTotals(store.db, id)).toEqual({ balance: 4_000_000, held: 0 });
  });

  it('applies concurrent replays of one credit exactly once', async () => {
    const id = await funded(0);
    await Promise.all(
      Array.from({ length: 20 }, () =>
        adjustBalance(store.db, {
          accountId: id,
          kind: 'credit',
          amountMicroUsd: 700,
          reason: 'x',
          idempotencyKey: 'same',
        }),
      ),
    );
    expect((await getBalance(store.db, id)).balanceMicroUsd).toBe(700);
  });

  it('never debits below zero or below what is held', async () => {
    const id = await funded(1000);
    await expect(
      adjustBalance(store.db, {
        accountId: id,
        kind: 'debit',
        amountMicroUsd: 1001,
        reason: 'x',
        idempotencyKey: 'too-much',
      }),
    ).rejects.toBeInstanceOf(InsufficientBalanceError);
    await placeHold(store.db, hold(id, 600));
    await expect(
      adjustBalance(store.db, {
        accountId: id,
        kind: 'debit',
        amountMicroUsd: 500,
        reason: 'x',
        idempotencyKey: 'under-hold',
      }),
    ).rejects.toBeInstanceOf(InsufficientBalanceError);
    expect(await getBalance(store.db, id)).toMatchObject({
      balanceMicroUsd: 1000,
      heldMicroUsd: 600,
      availableMicroUsd: 400,
    });
  });

  it('holds, then captures exactly the held amount once', async () => {
    const id = await funded(10_000);
    const h = await placeHold(store.db, hold(id, 2_500));
    expect(h.balance).toMatchObject({
      balanceMicroUsd: 10_000,
      heldMicroUsd: 2_500,
      availableMicroUsd: 7_500,
    });
    const captured = await captureHold(store.db, h.holdId);
    expect(captured).toMatchObject({ status: 'captured', applied: true, amountMicroUsd: 2_500 });
    expect(captured.balance).toMatchObject({ balanceMicroUsd: 7_500, heldMicroUsd: 0 });
    const replay = await captureHold(store.db, h.holdId);
    expect(replay.applied).toBe(false);
    const late = await releaseHold(store.db, h.holdId);
    expect(late).toMatchObject({ applied: false, status: 'captured' });
    expect(await getBalance(store.db, id)).toMatchObject({ balanceMicroUsd: 7_500, heldMicroUsd: 0 });
    expect(await ledgerTotals(store.db, id)).toEqual({ balance: 7_500, held: 0 });
  });

  it('releases a hold without charging', async () => {
    const id = await funded(3_000);
    const h = await placeHold(store.db, hold(id, 3_000));
    await expect(placeHold(store.db, hold(id, 1))).rejects.toMatchObject({
      needed: 1,
      available: 0,
      shortfall: 1,
    });
    await releaseHold(store.db, h.holdId);
    expect(await getBalance(store.db, id)).toMatchObject({ balanceMicroUsd: 3_000, heldMicroUsd: 0 });
  });

  it('lets exactly as many concurrent holds through as the balance covers', async () => {
    const id = await funded(100 * 1_000);
    const results = await Promise.allSettled(
      Array.from({ length: 400 }, (_, i) => placeHold(store.db, hold(id, 1_000, { requestId: `r${i}` }))),
    );
    const ok = results.filter((r) => r.status === 'fulfilled') as PromiseFulfilledResult<
      Awaited<ReturnType<typeof placeHold>>
    >[];
    const refused = results.filter((r) => r.status === 'rejected');
    expect(ok).toHaveLength(100);
    expect(refused).toHaveLength(300);
    for (const r of refused)
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(InsufficientBalanceError);
    await Promise.all(ok.map((r) => captureHold(store.db, r.value.holdId)));
    expect(await getBalance(store.db, id)).toMatchObject({ balanceMicroUsd: 0, heldMicroUsd: 0 });
    expect(await ledgerTotals(store.db, id)).toEqual({ balance: 0, held: 0 });
  });

  it('bounds a key by its spend cap, and releases count back under it', async () => {
    const id = await funded(1_000_000);
    const key = await issueKey(store.db, id, { spendCapMicroUsd: 5_000 });
    const resolved = await new KeyResolver(store.db).resolve(key.key);
    expect(resolved).toMatchObject({ keyId: key.key_id, accountId: id, spendCapped: true });
    const a = await placeHold(store.db, hold(id, 3_000, { keyId: key.key_id, keySpendCapped: true }));
    await expect(
      placeHold(store.db, hold(id, 2_001, { keyId: key.key_id, keySpendCapped: true })),
    ).rejects.toBeInstanceOf(SpendCapExceededError);
    // The refused hold left the account untouched.
    expect((await getBalance(store.db, id)).heldMicroUsd).toBe(3_000);
    await captureHold(store.db, a.holdId);
    const b = await placeHold(store.db, hold(id, 2_000, { keyId: key.key_id, keySpendCapped: true }));
    await releaseHold(store.db, b.holdId);
    await placeHold(store.db, hold(id, 2_000, { keyId: key.key_id, keySpendCapped: true }));
    await expect(
      placeHold(store.db, hold(id, 1, { keyId: key.key_id, keySpendCapped: true })),
    ).rejects.toBeInstanceOf(SpendCapExceededError);
  });

  it('resolves keys by hash only, and forgets revoked keys', async () => {
    const id = await funded(0);
    const key = await issueKey(store.db, id, { label: 'ci' });
    expect(key.key).toMatch(/^ksr_[A-Za-z0-9_-]{43}$/);
    const stored = await store.db.kysely
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', key.key_id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(stored)).not.toContain(key.key);
    const resolver = new KeyResolver(store.db);
    expect(await resolver.resolve(key.key)).toMatchObject({ keyId: key.key_id });
    expect(await resolver.resolve(`${key.key.slice(0, -1)}x`)).toBeNull();
    expect(await resolver.resolve('not-a-key')).toBeNull();
    await revokeKey(store.db, key.key_id);
    resolver.forget(key.key_id);
    expect(await resolver.resolve(key.key)).toBeNull();
  });

  it('sweeps expired holds: released, whatever their calls were doing; unexpired holds stay', async () => {
    const id = await funded(10_000);
    const lost = await placeHold(store.db, hold(id, 1_000, { ttlSeconds: 30 }));
    const other = await placeHold(store.db, hold(id, 2_000, { ttlSeconds: 30 }));
    const fresh = await placeHold(store.db, hold(id, 4_000, { ttlSeconds: 3600 }));
    const result = await sweepExpiredHolds(store.db, new Date(Date.now() + 60_000));
    expect(result).toEqual({ released: 2 });
    expect(await getBalance(store.db, id)).toMatchObject({ balanceMicroUsd: 10_000, heldMicroUsd: 4_000 });
    const statuses = await store.db.kysely
      .selectFrom('holds')
      .select(['id', 'status'])
      .where('id', 'in', [lost.holdId, other.holdId, fresh.holdId])
      .execute();
    expect(Object.fromEntries(statuses.map((s) => [s.id, s.status]))).toEqual({
      [lost.holdId]: 'released',
      [other.holdId]: 'released',
      [fresh.holdId]: 'open',
    });
    expect(await ledgerTotals(store.db, id)).toEqual({ balance: 10_000, held: 4_000 });
  });

  it('keeps the ledger append-only: entries are never rewritten by settling', async () => {
    const id = await funded(5_000);
    const h = await placeHold(store.db, hold(id, 1_000));
    await captureHold(store.db, h.holdId);
    const kinds = await store.db.kysely
      .selectFrom('ledger_entries')
      .select(['kind', 'amount_micro_usd', 'held_delta_micro_usd'])
      .where('account_id', '=', id)
      .orderBy('id')
      .execute();
    expect(kinds).toEqual([
      { kind: 'credit', amount_micro_usd: 5_000, held_delta_micro_usd: 0 },
      { kind: 'hold', amount_micro_usd: 0, held_delta_micro_usd: 1_000 },
      { kind: 'capture', amount_micro_usd: -1_000, held_delta_micro_usd: -1_000 },
    ]);
  });

  it('charges a lease a batch at a time: one capture entry and one usage row per call, each balance as if settled in turn', async () => {
    const id = await funded(100_000);
    const leaseId = newId('lease');
    await openLease(store.db, leaseId, id, 50_000);
    // 40 calls: more than one statement's worth of rows (32), so both statements carry the shared columns.
    const charges = Array.from({ length: 40 }, (_, i) => {
      const chargeId = newId('chg');
      return { chargeId, amountMicroUsd: 100 + i, usage: chargedUsage(id, `req-${i}`, 100 + i) };
    });
    const balance = await chargeLease(
      store.db,
      leaseId,
      charges,
      new Date(Date.now() + 600_000).toISOString(),
    );
    const total = charges.reduce((sum, c) => sum + c.amountMicroUsd, 0);
    expect(balance).toMatchObject({ balanceMicroUsd: 100_000 - total, heldMicroUsd: 50_000 - total });
    const entries = await store.db.kysely
      .selectFrom('ledger_entries')
      .selectAll()
      .where('kind', '=', 'capture')
      .where('account_id', '=', id)
      .orderBy('id')
      .execute();
    // Each entry states the balance and the held amount right after its own charge.
    let balanceAfter = 100_000;
    let heldAfter = 50_000;
    const expected = charges.map((c) => {
      balanceAfter -= c.amountMicroUsd;
      heldAfter -= c.amountMicroUsd;
      return {
        account_id: id,
        kind: 'capture',
        amount_micro_usd: -c.amountMicroUsd,
        held_delta_micro_usd: -c.amountMicroUsd,
        balance_after_micro_usd: balanceAfter,
        held_after_micro_usd: heldAfter,
        idempotency_key: `capture:${c.chargeId}`,
        hold_id: leaseId,
        reason: null,
      };
    });
    expect(entries).toHaveLength(40);
    expect(entries).toMatchObject(expected);
    // One time for the whole batch.
    expect(new Set(entries.map((e) => e.created_at)).size).toBe(1);
    const usage = await store.db.kysely
      .selectFrom('usage_records')
      .select(['request_id', 'account_id', 'charged_micro_usd'])
      .where('account_id', '=', id)
      .orderBy('id')
      .execute();
    expect(usage).toEqual(
      charges.map((c, i) => ({
        request_id: `req-${i}`,
        account_id: id,
        charged_micro_usd: c.amountMicroUsd,
      })),
    );
    expect(await ledgerTotals(store.db, id)).toEqual({ balance: 100_000 - total, held: 50_000 - total });
  });
});
