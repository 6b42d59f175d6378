/**
 * Top-up orders: created with the rate fixed, settled by a verified gateway notice through the ledger's idempotent
 * credit (the same one the admin API uses), and claimed once by the visitor's browser for a new key.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { type IssuedKey, newKeyRow } from '../ledger/accounts.js';
import { adjustBalance } from '../ledger/books.js';
import { newId, nowIso } from '../ledger/ids.js';
import type { Db } from '../store/db.js';
import type { TopupOrderTable, TopupStatus } from '../store/schema.js';
import type { PaymentNotice } from './gateway.js';
import { formatIdr, idrToMicroUsd } from './rupiah.js';

export type TopupOrder = TopupOrderTable;

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** Gateway order ids: 50 characters at most, letters, digits and dashes (Midtrans's rule). */
function newOrderId(): string {
  return `topup-${Date.now().toString(16)}-${randomUUID().slice(-12)}`;
}

/** A pending order past its expiry counts as expired, whether or not anything has written that down yet. */
export function statusOf(order: TopupOrder, now = new Date()): TopupStatus {
  if (order.status === 'pending' && new Date(order.expires_at) <= now) return 'expired';
  return order.status;
}

/**
 * Records a new pending order. For a signed-in account it credits that account; for a visitor it names the account
 * that payment will create. Returns the order and, for a visitor, the secret that lets the browser claim the key.
 */
export async function createOrder(
  db: Db,
  input: {
    gateway: string;
    amountIdr: number;
    idrPerUsd: number;
    expiryMinutes: number;
    accountId: string | null;
  },
): Promise<{ order: TopupOrder; claimSecret: string | null }> {
  const now = new Date();
  const claimSecret = input.accountId ? null : randomBytes(32).toString('base64url');
  const order: TopupOrder = {
    id: newOrderId(),
    gateway: input.gateway,
    amount_idr: input.amountIdr,
    idr_per_usd: input.idrPerUsd,
    amount_micro_usd: idrToMicroUsd(input.amountIdr, input.idrPerUsd),
    account_id: input.accountId ?? newId('acct'),
    new_account: input.accountId ? 0 : 1,
    status: 'pending',
    qr_string: null,
    gateway_ref: null,
    claim_hash: claimSecret ? sha256(claimSecret) : null,
    key_id: null,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + input.expiryMinutes * 60_000).toISOString(),
    paid_at: null,
  };
  await db.kysely.insertInto('topup_orders').values(order).execute();
  return { order, claimSecret };
}

export async function recordCharge(
  db: Db,
  orderId: string,
  charge: { qrString: string; gatewayRef: string } | null,
): Promise<void> {
  await db.kysely
    .updateTable('topup_orders')
    .set(
      charge
        ? { qr_string: charge.qrString, gateway_ref: charge.gatewayRef }
        : { status: 'failed' as TopupStatus },
    )
    .where('id', '=', orderId)
    .execute();
}

export async function getOrder(db: Db, orderId: string): Promise<TopupOrder | null> {
  return (
    (await db.kysely.selectFrom('topup_orders').selectAll().where('id', '=', orderId).executeTakeFirst()) ??
    null
  );
}

export async function listOrders(db: Db, accountId: string, limit = 50): Promise<TopupOrder[]> {
  return db.kysely
    .selectFrom('topup_orders')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute();
}

/** True when `secret` is the one handed to the browser that created the order. */
export function holdsClaim(order: TopupOrder, secret: string | undefined): boolean {
  return !!secret && !!order.claim_hash && sha256(secret) === order.claim_hash;
}

export type SettleOutcome =
  | 'credited'
  | 'already-paid'
  | 'unknown-order'
  | 'expired'
  | 'amount-mismatch'
  | 'closed'
  | 'pending'
  | 'not-pending';

/**
 * Applies one verified notice. Only a 'paid' notice for a pending, unexpired order of the same amount moves money,
 * and it credits through the ledger's idempotent credit keyed by the order, so a notice applied twice (or by two
 * instances at once) credits once. The order is marked paid after the credit: a crash between the two leaves a
 * pending order whose next notice (gateways retry) finds the credit already applied and marks it.
 */
export async function settleNotice(db: Db, notice: PaymentNotice, now = new Date()): Promise<SettleOutcome> {
  const order = await getOrder(db, notice.orderId);
  if (!order) return 'unknown-order';
  if (notice.outcome === 'pending') return 'pending';
  if (order.status === 'paid') return notice.outcome === 'paid' ? 'already-paid' : 'not-pending';
  if (order.status !== 'pending') return 'not-pending';
  if (notice.outcome === 'closed') {
    await db.kysely
      .updateTable('topup_orders')
      .set({ status: notice.status === 'expire' ? 'expired' : 'failed' })
      .where('id', '=', order.id)
      .where('status', '=', 'pending')
      .execute();
    return 'closed';
  }
  if (statusOf(order, now) === 'expired') return 'expired';
  if (notice.amountIdr !== order.amount_idr) return 'amount-mismatch';
  if (order.new_account) {
    await db.kysely
      .insertInto('accounts')
      .values({
        id: order.account_id,
        label: `QRIS top-up ${order.id}`,
        balance_micro_usd: 0,
        held_micro_usd: 0,
        rate_limit_per_minute: null,
        created_at: nowIso(),
      })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }
  const { applied } = await adjustBalance(db, {
    accountId: order.account_id,
    kind: 'credit',
    amountMicroUsd: order.amount_micro_usd,
    reason: `QRIS top-up ${order.id}: ${formatIdr(order.amount_idr)} at ${formatIdr(order.idr_per_usd)}/USD`,
    idempotencyKey: `topup:${order.id}`,
  });
  await db.kysely
    .updateTable('topup_orders')
    .set({ status: 'paid', paid_at: nowIso(), gateway_ref: notice.gatewayRef ?? order.gateway_ref })
    .where('id', '=', order.id)
    .where('status', '=', 'pending')
    .execute();
  return applied ? 'credited' : 'already-paid';
}

/**
 * Issues the key of a visitor's paid order, once: the order is marked and the key inserted in one transaction, so
 * two tabs claiming at once get one key between them. Null when the order is not paid or its key was claimed.
 */
export async function claimKey(db: Db, orderId: string): Promise<IssuedKey | null> {
  const order = await getOrder(db, orderId);
  if (order?.status !== 'paid' || !order.new_account || order.key_id) return null;
  const { row, issued } = newKeyRow(order.account_id, { label: 'QRIS top-up' });
  const mark = (k: typeof db.kysely) =>
    k
      .updateTable('topup_orders')
      .set({ key_id: row.id })
      .where('id', '=', orderId)
      .where('key_id', 'is', null);
  const insert = (k: typeof db.kysely) => k.insertInto('api_keys').values(row);
  if (db.kind === 'sqlite') {
    // The books run their own synchronous SQLite transactions on this connection, so this one is synchronous too
    // (Kysely's would stay open across awaits, where a charge's transaction could land inside it).
    const marked = mark(db.kysely).compile();
    const inserted = insert(db.kysely).compile();
    const sqlite = db.sqlite;
    const done = sqlite.transaction(() => {
      if (sqlite.prepare(marked.sql).run(...marked.parameters).changes !== 1) return false;
      sqlite.prepare(inserted.sql).run(...inserted.parameters);
      return true;
    })();
    return done ? issued : null;
  }
  return db.kysely.transaction().execute(async (trx) => {
    const marked = await mark(trx).executeTakeFirst();
    if (Number(marked.numUpdatedRows) !== 1) return null;
    await insert(trx).execute();
    return issued;
  });
}
