/**
 * A running call's hold on a payment channel: each one is a row of `channel_holds` (the channel's `in_flight` is
 * their sum), taken with the voucher (store.ts), which lapses `HOLD_TTL_SECONDS` after it was taken or last renewed
 * or raised. A call's end settles it (what was charged stays spent, the rest goes back); a process that dies
 * mid-call leaves its row, and the sweeper gives the lapsed hold back (sweepChannelHolds) so the channel's spend is
 * again what ended calls spent and it can close. A call's end, its raise and the sweeper each take the hold's row
 * before the channel's (a new call writes its new row last, which nobody waits on), so they never wait on each
 * other in a cycle.
 */
import type { Kysely } from 'kysely';
import { newId, nowIso } from '../../ledger/ids.js';
import type { Db } from '../../store/db.js';
import type { Database, PaymentChannelTable, UsageRecordTable } from '../../store/schema.js';
import { chargeColumns } from '../usage.js';

/**
 * A call's usage record, written in the same transaction as the call's settlement (a process killed between the two
 * would leave the channel charged with no record of it): its charge and status are the settlement's.
 */
export type ChannelUsage = Omit<UsageRecordTable, 'id' | 'charged_micro_usd' | 'status'>;

/** One call's hold on a channel: its row in `channel_holds`, and how long it lasts untouched. */
export interface ChannelHold {
  id: string;
  channelId: string;
  ttlSeconds: number;
}

/** When a hold taken or raised now lapses. */
export const lapseAt = (ttlSeconds: number) => new Date(Date.now() + ttlSeconds * 1000).toISOString();

/** A new hold id for a call on `channelId`. */
export function newChannelHold(channelId: string, ttlSeconds: number): ChannelHold {
  return { id: newId('chold'), channelId: channelId.toLowerCase(), ttlSeconds };
}

/**
 * Puts a running call's hold's lapse off by its time to live again (the process running the call is alive). False
 * when the hold is gone: the call ended, or the sweeper already gave it back.
 */
export async function keepChannelHold(db: Db, hold: ChannelHold): Promise<boolean> {
  const done = await db.kysely
    .updateTable('channel_holds')
    .set({ expires_at: lapseAt(hold.ttlSeconds) })
    .where('id', '=', hold.id)
    .executeTakeFirst();
  return Number(done.numUpdatedRows) > 0;
}

/**
 * Where a metered call's hold stands after an attempt to raise it. `lapsed`: the sweeper already gave the hold back
 * (the call outlived `HOLD_TTL_SECONDS` without raising it); it gets no more, and ends.
 */
export type HoldRaise =
  | { raised: true; held: number; row: PaymentChannelTable }
  | { raised: false; row: PaymentChannelTable; closing: boolean; lapsed: boolean };

/**
 * Raises a running call's hold towards `want`, at least to `need`, from what the accepted vouchers still cover
 * (they may also pay other calls running at the same time, so the room is read with the row locked), and puts the
 * hold's lapse off by its time to live again, raised or not: a stream waiting for a voucher is alive.
 */
export async function raiseChannelHold(
  db: Db,
  hold: ChannelHold,
  need: number,
  want: number,
): Promise<HoldRaise> {
  return db.kysely.transaction().execute(async (trx): Promise<HoldRaise> => {
    const mine = await trx
      .updateTable('channel_holds')
      .set({ expires_at: lapseAt(hold.ttlSeconds) })
      .where('id', '=', hold.id)
      .returning('amount')
      .executeTakeFirst();
    let query = trx.selectFrom('payment_channels').selectAll().where('id', '=', hold.channelId);
    if (db.kind === 'postgres' && mine) query = query.forUpdate();
    const row = await query.executeTakeFirstOrThrow();
    const closing = row.close_requested_at !== null;
    if (!mine) return { raised: false, row, closing, lapsed: true };
    const held = mine.amount;
    const more = Math.min(want - held, row.accepted - row.spent);
    if (held + more < need) return { raised: false, row, closing, lapsed: false };
    const updated = await trx
      .updateTable('payment_channels')
      .set({ spent: row.spent + more, in_flight: row.in_flight + more, updated_at: nowIso() })
      .where('id', '=', hold.channelId)
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx
      .updateTable('channel_holds')
      .set({ amount: held + more })
      .where('id', '=', hold.id)
      .execute();
    return { raised: true, held: held + more, row: updated };
  });
}

/** A channel after a call ended, and what the call was charged. */
export interface SettledCall {
  accepted: number;
  spent: number;
  charged: number;
}

/**
 * Ends a call: `charged` of its hold stays spent (the whole hold for a served call, what was delivered for a
 * metered stream, nothing for a failed call) and the rest is given back; either way nothing is in flight for it.
 *
 * A call whose hold the sweeper already gave back (it outlived `HOLD_TTL_SECONDS`: its process was taken for dead)
 * gives nothing back again. It is charged what it delivered only when the channel is not closing and its accepted
 * vouchers still cover that on top of what is spent now; else it is charged nothing.
 *
 * `usage`, the call's usage record, is written in the same transaction, charged what the settlement charged.
 */
export async function settleChannelCall(
  db: Db,
  hold: ChannelHold,
  charged: number,
  served: boolean,
  usage?: ChannelUsage,
): Promise<SettledCall> {
  if (db.kind === 'postgres') {
    // One round trip for the usual end of a call (this runs once per paid call).
    const u = usage;
    const { rows } = await db.pool.query<SettledCall>({
      name: 'kasir_channel_settle_usage',
      text: SETTLE_SQL,
      values: [
        hold.id,
        charged,
        served ? 1 : 0,
        nowIso(),
        u ? 1 : 0,
        u?.created_at ?? null,
        u?.request_id ?? null,
        u?.rail ?? null,
        u?.account_id ?? null,
        u?.key_id ?? null,
        u?.payer ?? null,
        u?.offer_id ?? null,
        u?.quote_micro_usd ?? null,
        u?.http_status ?? null,
        u?.latency_ms ?? null,
        u?.error_code ?? null,
        u?.route ?? null,
        u?.network ?? null,
        u?.tx_id ?? null,
      ],
    });
    return rows[0] ?? db.kysely.transaction().execute((trx) => settleLate(trx, hold, charged, served, usage));
  }
  return db.kysely.transaction().execute(async (trx): Promise<SettledCall> => {
    const mine = await trx
      .deleteFrom('channel_holds')
      .where('id', '=', hold.id)
      .returning('amount')
      .executeTakeFirst();
    if (!mine) return settleLate(trx, hold, charged, served, usage);
    const kept = Math.min(charged, mine.amount);
    const row = await trx
      .updateTable('payment_channels')
      .set((eb) => ({
        spent: eb('spent', '-', mine.amount - kept),
        in_flight: eb('in_flight', '-', mine.amount),
        units: eb('units', '+', served ? 1 : 0),
        updated_at: nowIso(),
      }))
      .where('id', '=', hold.channelId)
      .returning(['accepted', 'spent'])
      .executeTakeFirstOrThrow();
    await recordUsage(trx, usage, kept);
    return { ...row, charged: kept };
  });
}

/** Writes a call's usage record (if any), charged `charged`. */
async function recordUsage(db: Kysely<Database>, usage: ChannelUsage | undefined, charged: number) {
  if (!usage) return;
  await db
    .insertInto('usage_records')
    .values({ ...usage, ...chargeColumns(charged) })
    .execute();
}

// $1 hold id, $2 charged, $3 1 when served, $4 now; $5 1 when a usage record is written, $6–$19 its columns. No row:
// the hold was already given back (and nothing is written).
const SETTLE_SQL = `
WITH h AS (
  DELETE FROM channel_holds WHERE id = $1 RETURNING channel_id, amount, LEAST($2::bigint, amount) AS kept
), c AS (
  UPDATE payment_channels c SET spent = c.spent - (h.amount - h.kept), in_flight = c.in_flight - h.amount,
    units = c.units + $3::int, updated_at = $4
  FROM h WHERE c.id = h.channel_id
  RETURNING c.accepted, c.spent, h.kept AS charged
), u AS (
  INSERT INTO usage_records (created_at, request_id, rail, account_id, key_id, payer, offer_id, quote_micro_usd,
    charged_micro_usd, status, http_status, latency_ms, error_code, route, network, tx_id)
  SELECT $6::text, $7::text, $8::text, $9::text, $10::text, $11::text, $12::text, $13::bigint, c.charged,
    CASE WHEN c.charged > 0 THEN 'charged' ELSE 'voided' END, $14::int, $15::int, $16::text, $17::text, $18::text,
    $19::text
  FROM c WHERE $5::int = 1
)
SELECT accepted, spent, charged FROM c`;

/** The end of a call whose hold the sweeper gave back: see settleChannelCall. */
async function settleLate(
  db: Kysely<Database>,
  hold: ChannelHold,
  charged: number,
  served: boolean,
  usage: ChannelUsage | undefined,
): Promise<SettledCall> {
  if (served) {
    // One conditional statement: the room is read and taken atomically, as other calls may spend meanwhile.
    const late = await db
      .updateTable('payment_channels')
      .set((eb) => ({
        spent: eb('spent', '+', charged),
        units: eb('units', '+', 1),
        updated_at: nowIso(),
      }))
      .where('id', '=', hold.channelId)
      .where('close_requested_at', 'is', null)
      .where((eb) => eb(eb('spent', '+', charged), '<=', eb.ref('accepted')))
      .returning(['accepted', 'spent'])
      .executeTakeFirst();
    if (late) {
      await recordUsage(db, usage, charged);
      return { ...late, charged };
    }
  }
  const row = await db
    .selectFrom('payment_channels')
    .select(['accepted', 'spent'])
    .where('id', '=', hold.channelId)
    .executeTakeFirstOrThrow();
  await recordUsage(db, usage, 0);
  return { ...row, charged: 0 };
}

/** A lapsed hold the sweeper gave back. */
export interface ReleasedChannelHold {
  id: string;
  channelId: string;
  amount: number;
  expiredAt: string;
}

/**
 * Gives back the holds that lapsed before `now` (left by processes that died mid-call): the channel's spend and
 * in-flight go down by each, and its row goes. A hold raised or ended meanwhile is left to its call.
 */
export async function sweepChannelHolds(db: Db, now = new Date()): Promise<ReleasedChannelHold[]> {
  const cutoff = now.toISOString();
  const lapsed = await db.kysely
    .selectFrom('channel_holds')
    .select('id')
    .where('expires_at', '<', cutoff)
    .limit(1000)
    .execute();
  const released: ReleasedChannelHold[] = [];
  for (const { id } of lapsed) {
    const hold = await db.kysely.transaction().execute(async (trx) => {
      const gone = await trx
        .deleteFrom('channel_holds')
        .where('id', '=', id)
        .where('expires_at', '<', cutoff)
        .returning(['channel_id', 'amount', 'expires_at'])
        .executeTakeFirst();
      if (!gone) return null;
      await trx
        .updateTable('payment_channels')
        .set((eb) => ({
          spent: eb('spent', '-', gone.amount),
          in_flight: eb('in_flight', '-', gone.amount),
          updated_at: nowIso(),
        }))
        .where('id', '=', gone.channel_id)
        .execute();
      return { id, channelId: gone.channel_id, amount: gone.amount, expiredAt: gone.expires_at };
    });
    if (hold) released.push(hold);
  }
  return released;
}
