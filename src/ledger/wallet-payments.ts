/**
 * Wallet payments in the database: the lock that lets one payment buy one call on every instance sharing the
 * database, and the usage record of each settlement (or failure). Nothing here holds the caller's money: a wallet
 * payment moves on its chain when it settles.
 */
import type { Db } from '../store/db.js';
import type { WalletPaymentState, WalletPaymentTable } from '../store/schema.js';
import type { UsageInsert } from './books.js';
import { nowIso } from './ids.js';

/** What a lock records of a payment (the rest of its row is the lock's own state). */
export type WalletPaymentFacts = Omit<WalletPaymentTable, 'state' | 'tx_id' | 'created_at' | 'settled_at'>;

/**
 * Takes the payment's lock: 'locked' when this call now owns it, else the state of the call that does
 * ('running': in flight; 'paid' or 'settled': already spent). `txId`: the payment already settled on its chain in
 * that transaction (a call is making its answer again).
 */
export async function lockWalletPayment(
  db: Db,
  p: WalletPaymentFacts,
  txId: string | null = null,
): Promise<'locked' | WalletPaymentState> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const inserted = await db.kysely
      .insertInto('wallet_payments')
      .values({ ...p, state: 'running', tx_id: txId, created_at: nowIso(), settled_at: null })
      .onConflict((oc) => oc.column('id').doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return 'locked';
    const held = await walletPaymentState(db, p.id);
    // Gone between the two statements: its call failed and let go of it; try again.
    if (held) return held;
  }
  return 'running';
}

/** The state of a payment kasir has seen ('running' or 'settled'), or undefined. */
export async function walletPaymentState(db: Db, id: string): Promise<WalletPaymentState | undefined> {
  const row = await db.kysely
    .selectFrom('wallet_payments')
    .select('state')
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.state;
}

/** A payment kasir has seen: its state, its settlement's transaction once it settled, and the route it paid. */
export async function walletPayment(
  db: Db,
  id: string,
): Promise<{ state: WalletPaymentState; tx_id: string | null; route: string } | undefined> {
  return db.kysely
    .selectFrom('wallet_payments')
    .select(['state', 'tx_id', 'route'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * Records that the payment settled on its chain in `txId`: 'paid' until its answer is stored (see
 * `handOverWalletPayment`), so that a process dying in between leaves a payment whose answer can be made again.
 */
export async function settleWalletPayment(db: Db, id: string, txId: string): Promise<void> {
  await db.kysely
    .updateTable('wallet_payments')
    .set({ state: 'paid', tx_id: txId, settled_at: nowIso() })
    .where('id', '=', id)
    .execute();
}

/** Marks a settled payment spent for good: its answer is stored for replay and is being handed over. */
export async function handOverWalletPayment(db: Db, id: string): Promise<void> {
  await db.kysely.updateTable('wallet_payments').set({ state: 'settled' }).where('id', '=', id).execute();
}

/**
 * Claims a payment that settled but whose answer was never stored ('paid'), to make its answer again: true when this
 * call now owns it ('running', its transaction kept; a sweeper lets it go if this process dies too).
 */
export async function reclaimPaidWalletPayment(db: Db, id: string): Promise<boolean> {
  const res = await db.kysely
    .updateTable('wallet_payments')
    .set({ state: 'running', created_at: nowIso() })
    .where('id', '=', id)
    .where('state', '=', 'paid')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Gives a payment whose answer could not be made again back to 'paid' (it stays settled; a retry may try again). */
export async function unclaimPaidWalletPayment(db: Db, id: string): Promise<void> {
  await db.kysely
    .updateTable('wallet_payments')
    .set({ state: 'paid' })
    .where('id', '=', id)
    .where('state', '=', 'running')
    .execute();
}

/** Whether a usage record already charges the settlement `txId` (a call that made its answer again adds none). */
export async function walletUsageCharged(db: Db, txId: string): Promise<boolean> {
  const row = await db.kysely
    .selectFrom('usage_records')
    .select('request_id')
    .where('tx_id', '=', txId)
    .where('charged_micro_usd', '>', 0)
    .executeTakeFirst();
  return row !== undefined;
}

/** Lets go of a payment whose call failed: nothing settled, so the payer may send it again. */
export async function releaseWalletPayment(db: Db, id: string): Promise<void> {
  await db.kysely.deleteFrom('wallet_payments').where('id', '=', id).where('state', '=', 'running').execute();
}

/**
 * Lets go of payments left 'running' by an instance that died mid-call (the sweeper's part). Safe even if one
 * settled on its chain just before the crash: the chain refuses it a second time, and the rail, finding it settled
 * there, makes its answer again (see the x402 rail's `settlementOf`).
 */
export async function releaseStaleWalletPayments(db: Db, olderThan: string): Promise<number> {
  const result = await db.kysely
    .deleteFrom('wallet_payments')
    .where('state', '=', 'running')
    .where('created_at', '<', olderThan)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The usage record of a wallet-paid call, with its settlement's facts. */
export async function recordWalletUsage(
  db: Db,
  row: UsageInsert,
  settlement: { route: string; network: string; txId: string | null },
): Promise<void> {
  await db.kysely
    .insertInto('usage_records')
    .values({ ...row, route: settlement.route, network: settlement.network, tx_id: settlement.txId })
    .execute();
}
