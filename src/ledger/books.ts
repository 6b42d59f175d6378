/**
 * The prepaid books: credit, debit, hold, capture, release. Every mutation is one transaction that moves the
 * account row and appends one ledger entry carrying a unique idempotency key, so replays apply once.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Db } from '../store/db.js';
import type { AccountTable, Database, HoldTable, LedgerKind } from '../store/schema.js';
import { InsufficientBalanceError, SpendCapExceededError, UnknownAccountError } from './errors.js';
import { newId, nowIso } from './ids.js';

type Tx = Transaction<Database> | Kysely<Database>;

export interface Balance {
  accountId: string;
  balanceMicroUsd: number;
  heldMicroUsd: number;
  availableMicroUsd: number;
}

export interface HoldRequest {
  accountId: string;
  keyId: string | null;
  /** When set, the key's spend cap also bounds this hold. */
  keySpendCapped: boolean;
  amountMicroUsd: number;
  offerId: string;
  requestId: string;
  ttlSeconds: number;
}

export interface PlacedHold {
  holdId: string;
  amountMicroUsd: number;
  balance: Balance;
}

export interface SettledHold {
  holdId: string;
  status: 'captured' | 'released';
  amountMicroUsd: number;
  balance: Balance;
  /** False when the hold was already settled (the call was a replay): nothing moved. */
  applied: boolean;
}

const toBalance = (a: Pick<AccountTable, 'id' | 'balance_micro_usd' | 'held_micro_usd'>): Balance => ({
  accountId: a.id,
  balanceMicroUsd: a.balance_micro_usd,
  heldMicroUsd: a.held_micro_usd,
  availableMicroUsd: a.balance_micro_usd - a.held_micro_usd,
});

function assertAmount(amount: number): void {
  if (!Number.isSafeInteger(amount) || amount <= 0)
    throw new RangeError(`amount must be a positive integer, got ${amount}`);
}

async function appendEntry(
  tx: Tx,
  account: Pick<AccountTable, 'id' | 'balance_micro_usd' | 'held_micro_usd'>,
  entry: {
    kind: LedgerKind;
    amount: number;
    heldDelta: number;
    key: string;
    holdId?: string;
    reason?: string | null;
  },
): Promise<void> {
  await tx
    .insertInto('ledger_entries')
    .values({
      account_id: account.id,
      kind: entry.kind,
      amount_micro_usd: entry.amount,
      held_delta_micro_usd: entry.heldDelta,
      balance_after_micro_usd: account.balance_micro_usd,
      held_after_micro_usd: account.held_micro_usd,
      idempotency_key: entry.key,
      hold_id: entry.holdId ?? null,
      reason: entry.reason ?? null,
      created_at: nowIso(),
    })
    .execute();
}

async function balanceOf(tx: Tx, accountId: string): Promise<Balance> {
  const row = await tx
    .selectFrom('accounts')
    .select(['id', 'balance_micro_usd', 'held_micro_usd'])
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (!row) throw new UnknownAccountError(accountId);
  return toBalance(row);
}

export async function getBalance(db: Db, accountId: string): Promise<Balance> {
  return balanceOf(db.kysely, accountId);
}

const isUniqueViolation = (err: unknown): boolean => {
  const e = err as { code?: string; message?: string };
  return (
    e.code === '23505' ||
    e.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    /UNIQUE constraint failed/.test(e.message ?? '')
  );
};

/**
 * Adds (credit) or removes (debit) money outside any call: top-ups, refunds, corrections.
 * The idempotency key makes a retried request apply once; a debit never takes the balance below what is held.
 */
export async function adjustBalance(
  db: Db,
  input: {
    accountId: string;
    kind: 'credit' | 'debit';
    amountMicroUsd: number;
    reason: string;
    idempotencyKey: string;
  },
): Promise<{ balance: Balance; applied: boolean }> {
  assertAmount(input.amountMicroUsd);
  const key = `${input.kind}:${input.accountId}:${input.idempotencyKey}`;
  const delta = input.kind === 'credit' ? input.amountMicroUsd : -input.amountMicroUsd;
  try {
    return await db.kysely.transaction().execute(async (tx) => {
      const seen = await tx
        .selectFrom('ledger_entries')
        .select('id')
        .where('idempotency_key', '=', key)
        .executeTakeFirst();
      if (seen) return { balance: await balanceOf(tx, input.accountId), applied: false };
      let update = tx
        .updateTable('accounts')
        .set((eb) => ({ balance_micro_usd: eb('balance_micro_usd', '+', delta) }))
        .where('id', '=', input.accountId);
      // Money already held for running calls cannot be debited away from under them.
      if (delta < 0)
        update = update.where((eb) => eb('balance_micro_usd', '-', eb.ref('held_micro_usd')), '>=', -delta);
      const updated = await update
        .returning(['id', 'balance_micro_usd', 'held_micro_usd'])
        .executeTakeFirst();
      if (!updated) {
        const current = await balanceOf(tx, input.accountId);
        throw new InsufficientBalanceError(input.amountMicroUsd, current.availableMicroUsd);
      }
      await appendEntry(tx, updated, {
        kind: input.kind,
        amount: delta,
        heldDelta: 0,
        key,
        reason: input.reason,
      });
      return { balance: toBalance(updated), applied: true };
    });
  } catch (err) {
    // A concurrent request with the same key won the race: report its outcome.
    if (isUniqueViolation(err)) return { balance: await getBalance(db, input.accountId), applied: false };
    throw err;
  }
}

/**
 * Reserves `amountMicroUsd` of the available balance (and of the key's spend cap) for one call.
 * One conditional UPDATE decides, so concurrent holds can never reserve more than the balance.
 */
export async function placeHold(db: Db, req: HoldRequest): Promise<PlacedHold> {
  assertAmount(req.amountMicroUsd);
  const holdId = newId('hold');
  const q = req.amountMicroUsd;
  return db.kysely.transaction().execute(async (tx) => {
    const account = await tx
      .updateTable('accounts')
      .set((eb) => ({ held_micro_usd: eb('held_micro_usd', '+', q) }))
      .where('id', '=', req.accountId)
      .where((eb) => eb('balance_micro_usd', '-', eb.ref('held_micro_usd')), '>=', q)
      .returning(['id', 'balance_micro_usd', 'held_micro_usd'])
      .executeTakeFirst();
    if (!account) {
      const current = await balanceOf(tx, req.accountId);
      throw new InsufficientBalanceError(q, current.availableMicroUsd);
    }
    if (req.keyId && req.keySpendCapped) {
      const key = await tx
        .updateTable('api_keys')
        .set((eb) => ({ held_micro_usd: eb('held_micro_usd', '+', q) }))
        .where('id', '=', req.keyId)
        .where((eb) =>
          eb.or([
            eb('spend_cap_micro_usd', 'is', null),
            eb(eb('spent_micro_usd', '+', eb.ref('held_micro_usd')), '<=', eb('spend_cap_micro_usd', '-', q)),
          ]),
        )
        .returning('id')
        .executeTakeFirst();
      if (!key) {
        const row = await tx
          .selectFrom('api_keys')
          .select(['spend_cap_micro_usd', 'spent_micro_usd', 'held_micro_usd'])
          .where('id', '=', req.keyId)
          .executeTakeFirstOrThrow();
        // Throwing rolls the account hold back too.
        throw new SpendCapExceededError(
          q,
          (row.spend_cap_micro_usd ?? 0) - row.spent_micro_usd - row.held_micro_usd,
        );
      }
    }
    const created = nowIso();
    await tx
      .insertInto('holds')
      .values({
        id: holdId,
        account_id: req.accountId,
        key_id: req.keyId,
        amount_micro_usd: q,
        status: 'open',
        delivered: 0,
        offer_id: req.offerId,
        request_id: req.requestId,
        created_at: created,
        expires_at: new Date(Date.now() + req.ttlSeconds * 1000).toISOString(),
        settled_at: null,
      })
      .execute();
    await appendEntry(tx, account, { kind: 'hold', amount: 0, heldDelta: q, key: `hold:${holdId}`, holdId });
    return { holdId, amountMicroUsd: q, balance: toBalance(account) };
  });
}

async function settleHold(
  db: Db,
  holdId: string,
  outcome: 'captured' | 'released',
  afterSettle?: (tx: Transaction<Database>, hold: HoldTable, balance: Balance) => Promise<void>,
): Promise<SettledHold> {
  return db.kysely.transaction().execute(async (tx) => {
    // Flipping the status from open is the guard: a second capture or release finds nothing to flip.
    const hold = await tx
      .updateTable('holds')
      .set({ status: outcome, settled_at: nowIso() })
      .where('id', '=', holdId)
      .where('status', '=', 'open')
      .returningAll()
      .executeTakeFirst();
    if (!hold) {
      const existing = await tx
        .selectFrom('holds')
        .selectAll()
        .where('id', '=', holdId)
        .executeTakeFirstOrThrow();
      return {
        holdId,
        // Not open, or the update above would have flipped it.
        status: existing.status as SettledHold['status'],
        amountMicroUsd: existing.amount_micro_usd,
        balance: await balanceOf(tx, existing.account_id),
        applied: false,
      };
    }
    const q = hold.amount_micro_usd;
    const spent = outcome === 'captured' ? q : 0;
    const account = await tx
      .updateTable('accounts')
      .set((eb) => ({
        held_micro_usd: eb('held_micro_usd', '-', q),
        balance_micro_usd: eb('balance_micro_usd', '-', spent),
      }))
      .where('id', '=', hold.account_id)
      .returning(['id', 'balance_micro_usd', 'held_micro_usd'])
      .executeTakeFirstOrThrow();
    if (hold.key_id) {
      await tx
        .updateTable('api_keys')
        .set((eb) => ({
          held_micro_usd: eb('held_micro_usd', '-', q),
          spent_micro_usd: eb('spent_micro_usd', '+', spent),
        }))
        .where('id', '=', hold.key_id)
        .where('spend_cap_micro_usd', 'is not', null)
        .execute();
    }
    await appendEntry(tx, account, {
      kind: outcome === 'captured' ? 'capture' : 'release',
      amount: -spent,
      heldDelta: -q,
      key: `${outcome === 'captured' ? 'capture' : 'release'}:${holdId}`,
      holdId,
    });
    const balance = toBalance(account);
    await afterSettle?.(tx, hold, balance);
    return { holdId, status: outcome, amountMicroUsd: q, balance, applied: true };
  });
}

/**
 * Charges exactly the held amount. `afterSettle` runs inside the same transaction (the usage row is written
 * there, so a charge and its record land together or not at all).
 */
export function captureHold(
  db: Db,
  holdId: string,
  afterSettle?: (tx: Transaction<Database>, hold: HoldTable, balance: Balance) => Promise<void>,
): Promise<SettledHold> {
  return settleHold(db, holdId, 'captured', afterSettle);
}

/** Returns the held amount to the available balance; nothing is charged. */
export function releaseHold(
  db: Db,
  holdId: string,
  afterSettle?: (tx: Transaction<Database>, hold: HoldTable, balance: Balance) => Promise<void>,
): Promise<SettledHold> {
  return settleHold(db, holdId, 'released', afterSettle);
}

/** Records that part of the result reached the caller, so a crash afterwards captures rather than releases. */
export async function markHoldDelivered(db: Db, holdId: string): Promise<void> {
  await db.kysely
    .updateTable('holds')
    .set({ delivered: 1 })
    .where('id', '=', holdId)
    .where('status', '=', 'open')
    .execute();
}

/**
 * Settles holds left open past their expiry (their process died): captured when the result had been
 * delivered, released otherwise. Safe to run on every instance at once: settling is guarded by status.
 */
export async function sweepExpiredHolds(
  db: Db,
  now = new Date(),
): Promise<{ captured: number; released: number }> {
  const stale = await db.kysely
    .selectFrom('holds')
    .select(['id', 'delivered'])
    .where('status', '=', 'open')
    .where('expires_at', '<', now.toISOString())
    .limit(1000)
    .execute();
  let captured = 0;
  let released = 0;
  for (const h of stale) {
    const settled = h.delivered ? await captureHold(db, h.id) : await releaseHold(db, h.id);
    if (!settled.applied) continue;
    if (settled.status === 'captured') captured++;
    else released++;
  }
  return { captured, released };
}
