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
 * ('running': in flight; 'settled': already spent).
 */
export async function lockWalletPayment(
  db: Db,
  p: WalletPaymentFacts,
): Promise<'locked' | WalletPaymentState> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const inserted = await db.kysely
      .insertInto('wallet_payments')
      .values({ ...p, state: 'running', tx_id: null, created_at: nowIso(), settled_at: null })
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

/** Marks the payment spent for good, with its settlement transaction. */
export async function settleWalletPayment(db: Db, id: string, txId: string): Promise<void> {
  await db.kysely
    .updateTable('wallet_payments')
    .set({ state: 'settled', tx_id: txId, settled_at: nowIso() })
    .where('id', '=', id)
    .execute();
}

/** Lets go of a payment whose call failed: nothing settled, so the payer may send it again. */
export async function releaseWalletPayment(db: Db, id: string): Promise<void> {
  await db.kysely.deleteFrom('wallet_payments').where('id', '=', id).where('state', '=', 'running').execute();
}

/**
 * Lets go of payments left 'running' by an instance that died mid-call (the sweeper's part). Safe even if one
 * settled on its chain just before the crash: the chain refuses it a second time.
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
