/**
 * The prepaid books: credit, debit, hold, capture, release. Every mutation is one atomic step that moves the
 * account row and appends one ledger entry with a unique idempotency key, so a replay applies once.
 * The statements themselves live per dialect (sqlite-books.ts, postgres-books.ts).
 */
import type { Db } from '../store/db.js';
import type {
  AccountRow,
  BooksDialect,
  HoldRequest,
  LeaseCharge,
  LeaseGrant,
  UsageInsert,
} from './dialect.js';
import { UnknownAccountError } from './errors.js';
import { newId, nowIso } from './ids.js';
import { createPostgresBooks } from './postgres-books.js';
import { createSqliteBooks } from './sqlite-books.js';

export type { HoldRequest, LeaseCharge, LeaseGrant, UsageInsert } from './dialect.js';

export interface Balance {
  accountId: string;
  balanceMicroUsd: number;
  heldMicroUsd: number;
  availableMicroUsd: number;
}

export interface PlacedHold {
  holdId: string;
  amountMicroUsd: number;
  /** The balance right after the hold (balance unchanged, held grown by the amount). */
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

const toBalance = (a: AccountRow): Balance => ({
  accountId: a.id,
  balanceMicroUsd: a.balance_micro_usd,
  heldMicroUsd: a.held_micro_usd,
  availableMicroUsd: a.balance_micro_usd - a.held_micro_usd,
});

// One dialect object per database, holding its prepared statements.
const dialects = new WeakMap<Db, BooksDialect>();
function books(db: Db): BooksDialect {
  let d = dialects.get(db);
  if (!d) {
    d = db.kind === 'sqlite' ? createSqliteBooks(db.sqlite) : createPostgresBooks(db.pool);
    dialects.set(db, d);
  }
  return d;
}

function assertAmount(amount: number): void {
  if (!Number.isSafeInteger(amount) || amount <= 0)
    throw new RangeError(`amount must be a positive integer, got ${amount}`);
}

export async function getBalance(db: Db, accountId: string): Promise<Balance> {
  const row = await db.kysely
    .selectFrom('accounts')
    .select(['id', 'balance_micro_usd', 'held_micro_usd'])
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (!row) throw new UnknownAccountError(accountId);
  return toBalance(row);
}

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
  const delta = input.kind === 'credit' ? input.amountMicroUsd : -input.amountMicroUsd;
  const key = `${input.kind}:${input.accountId}:${input.idempotencyKey}`;
  const result = await books(db).adjust(input.accountId, delta, key, input.kind, input.reason, nowIso());
  return { balance: toBalance(result.account), applied: result.applied };
}

/**
 * Reserves `amountMicroUsd` of the available balance (and of the key's spend cap) for one call. One
 * conditional UPDATE decides, so concurrent holds can never reserve more than the balance.
 */
export async function placeHold(db: Db, req: HoldRequest & { holdId?: string }): Promise<PlacedHold> {
  assertAmount(req.amountMicroUsd);
  const holdId = req.holdId ?? newId('hold');
  const now = new Date();
  const expires = new Date(now.getTime() + req.ttlSeconds * 1000).toISOString();
  const account = await books(db).placeHold(req, holdId, now.toISOString(), expires);
  return { holdId, amountMicroUsd: req.amountMicroUsd, balance: toBalance(account) };
}

async function settle(
  db: Db,
  holdId: string,
  outcome: 'captured' | 'released',
  usage?: UsageInsert,
): Promise<SettledHold> {
  const r = await books(db).settle(holdId, outcome, nowIso(), usage ?? null);
  return {
    holdId,
    status: r.status,
    amountMicroUsd: r.amountMicroUsd,
    balance: toBalance(r.account),
    applied: r.applied,
  };
}

/** Charges exactly the held amount; the usage row, when given, lands in the same transaction. */
export function captureHold(db: Db, holdId: string, usage?: UsageInsert): Promise<SettledHold> {
  return settle(db, holdId, 'captured', usage);
}

/** Returns the held amount to the available balance; nothing is charged. */
export function releaseHold(db: Db, holdId: string, usage?: UsageInsert): Promise<SettledHold> {
  return settle(db, holdId, 'released', usage);
}

/** Opens or grows an instance's lease on an account (see reserves.ts). */
export async function grantLease(
  db: Db,
  g: LeaseGrant,
): Promise<{ balance: Balance; grantedMicroUsd: number }> {
  assertAmount(g.minMicroUsd);
  const r = await books(db).grantLease(g);
  return { balance: toBalance(r.account), grantedMicroUsd: r.grantedMicroUsd };
}

/** Charges calls served from a lease, with their usage rows, in one step; returns the balance after. */
export async function chargeLease(
  db: Db,
  leaseId: string,
  charges: LeaseCharge[],
  expiresAt: string,
): Promise<Balance> {
  for (const c of charges) assertAmount(c.amountMicroUsd);
  return toBalance(await books(db).chargeLease(leaseId, charges, nowIso(), expiresAt));
}

/** Writes usage rows of calls that moved no money. */
export function insertUsage(db: Db, rows: UsageInsert[]): Promise<void> {
  return books(db).insertUsage(rows);
}

/**
 * Releases holds and leases left open past their expiry: their process died and no journal of it was replayed
 * (see journal-replay.ts), so none of their calls is known to have been answered. Safe to run on every instance
 * at once: settling is guarded by status.
 */
export async function sweepExpiredHolds(db: Db, now = new Date()): Promise<{ released: number }> {
  const stale = await db.kysely
    .selectFrom('holds')
    .select('id')
    .where('status', '=', 'open')
    .where('expires_at', '<', now.toISOString())
    .limit(1000)
    .execute();
  let released = 0;
  for (const h of stale) if ((await releaseHold(db, h.id)).applied) released++;
  return { released };
}
