/**
 * What the dashboard shows of usage: one viewer's rows (an account's, or a wallet's as payer) paged newest first,
 * all of them for CSV, and spend per day and per model for the charts.
 */
import { sql } from 'kysely';
import { type Catalog, pathOf } from '../catalog/types.js';
import type { Db } from '../store/db.js';

export type Viewer = { accountId: string } | { wallet: string };

export interface UsageLine {
  id: number;
  time: string;
  route: string;
  model: string;
  costMicroUsd: number;
  status: string;
  httpStatus: number;
  rail: string;
}

function scoped(db: Db, viewer: Viewer) {
  const q = db.kysely.selectFrom('usage_records');
  // Wallet addresses are compared case-insensitively (EVM addresses arrive checksummed or lower-case).
  return 'accountId' in viewer
    ? q.where('account_id', '=', viewer.accountId)
    : q.where(sql<string>`lower(payer)`, '=', viewer.wallet.toLowerCase());
}

function routeOf(catalog: Catalog, offerId: string, recorded: string | null | undefined): string {
  if (recorded) return recorded;
  const entry = catalog.find(offerId);
  if (!entry) return '';
  return pathOf(entry);
}

export async function usagePage(
  db: Db,
  catalog: Catalog,
  viewer: Viewer,
  page: { limit: number; before?: number | undefined },
): Promise<{ lines: UsageLine[]; nextBefore: number | null }> {
  let q = scoped(db, viewer).selectAll();
  if (page.before !== undefined) q = q.where('id', '<', page.before);
  const rows = await q.orderBy('id', 'desc').limit(page.limit).execute();
  const lines = rows.map((r) => ({
    id: r.id,
    time: r.created_at,
    route: routeOf(catalog, r.offer_id, r.route),
    model: r.offer_id,
    costMicroUsd: Number(r.charged_micro_usd),
    status: r.status,
    httpStatus: r.http_status,
    rail: r.rail,
  }));
  const last = lines.at(-1);
  return { lines, nextBefore: lines.length === page.limit && last ? last.id : null };
}

export interface SpendSeries {
  perDay: Array<{ day: string; microUsd: number }>;
  perModel: Array<{ model: string; microUsd: number }>;
}

/** Charged spend per UTC day over the last `days` days, and per model over the same window (top 10). */
export async function spendSeries(db: Db, viewer: Viewer, days = 30, now = new Date()): Promise<SpendSeries> {
  const since = new Date(now.getTime() - days * 86_400_000).toISOString();
  const day = sql<string>`substr(created_at, 1, 10)`;
  const total = sql<string | number>`sum(charged_micro_usd)`;
  const base = () => scoped(db, viewer).where('status', '=', 'charged').where('created_at', '>=', since);
  const perDay = await base()
    .select([day.as('day'), total.as('total')])
    .groupBy(day)
    .orderBy(day)
    .execute();
  const perModel = await base()
    .select(['offer_id', total.as('total')])
    .groupBy('offer_id')
    .orderBy(total, 'desc')
    .limit(10)
    .execute();
  return {
    perDay: perDay.map((r) => ({ day: r.day, microUsd: Number(r.total) })),
    perModel: perModel.map((r) => ({ model: r.offer_id, microUsd: Number(r.total) })),
  };
}

/**
 * RFC 4180 CSV of usage lines (written here: quoting three characters is all it takes, a library would add a
 * dependency for less). Cells that a spreadsheet would run as a formula are prefixed with an apostrophe.
 */
export function usageCsv(lines: UsageLine[], formatUsd: (micro: number) => string): string {
  const cell = (v: string | number) => {
    let s = String(v);
    if (/^[=+\-@\t\r]/.test(s) && typeof v === 'string') s = `'${s}`;
    return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
  };
  const head = ['time', 'route', 'model', 'cost_usd', 'cost_micro_usd', 'status', 'http_status', 'rail'];
  const body = lines.map((l) =>
    [l.time, l.route, l.model, formatUsd(l.costMicroUsd), l.costMicroUsd, l.status, l.httpStatus, l.rail]
      .map(cell)
      .join(','),
  );
  return `${[head.join(','), ...body].join('\r\n')}\r\n`;
}
