/** Read-only views of an account's books: ledger entries and usage records, newest first, paged by id. */
import type { Db } from '../store/db.js';
import type { LedgerEntryTable, UsageRecordTable } from '../store/schema.js';

export interface Page {
  limit: number;
  /** Return rows with an id below this one (the `next_before` of the previous page). */
  before?: number | undefined;
}

type Row<T> = { [K in keyof T]: T[K] extends import('kysely').Generated<infer V> ? V : T[K] };

export interface Paged<T> {
  items: T[];
  next_before: number | null;
}

function paged<T extends { id: number }>(rows: T[], limit: number): Paged<T> {
  const last = rows.at(-1);
  return { items: rows, next_before: rows.length === limit && last ? last.id : null };
}

export async function listLedger(
  db: Db,
  accountId: string,
  page: Page,
): Promise<Paged<Row<LedgerEntryTable>>> {
  let q = db.kysely.selectFrom('ledger_entries').selectAll().where('account_id', '=', accountId);
  if (page.before !== undefined) q = q.where('id', '<', page.before);
  return paged(await q.orderBy('id', 'desc').limit(page.limit).execute(), page.limit);
}

export async function listUsage(
  db: Db,
  accountId: string,
  page: Page,
): Promise<Paged<Row<UsageRecordTable>>> {
  let q = db.kysely.selectFrom('usage_records').selectAll().where('account_id', '=', accountId);
  if (page.before !== undefined) q = q.where('id', '<', page.before);
  return paged(await q.orderBy('id', 'desc').limit(page.limit).execute(), page.limit);
}

/** Usage records of every payer (wallet rails have no account), newest first, optionally of one rail or payer. */
export async function listAllUsage(
  db: Db,
  filter: { rail?: string | undefined; payer?: string | undefined },
  page: Page,
): Promise<Paged<Row<UsageRecordTable>>> {
  let q = db.kysely.selectFrom('usage_records').selectAll();
  if (filter.rail) q = q.where('rail', '=', filter.rail);
  if (filter.payer) q = q.where('payer', '=', filter.payer);
  if (page.before !== undefined) q = q.where('id', '<', page.before);
  return paged(await q.orderBy('id', 'desc').limit(page.limit).execute(), page.limit);
}

/** Σ of the ledger per account, to check it against the account row (they must always agree). */
export async function ledgerTotals(db: Db, accountId: string): Promise<{ balance: number; held: number }> {
  const row = await db.kysely
    .selectFrom('ledger_entries')
    .select((eb) => [
      eb.fn.coalesce(eb.fn.sum<number>('amount_micro_usd'), eb.lit(0)).as('balance'),
      eb.fn.coalesce(eb.fn.sum<number>('held_delta_micro_usd'), eb.lit(0)).as('held'),
    ])
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return { balance: Number(row.balance), held: Number(row.held) };
}
