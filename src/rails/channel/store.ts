/**
 * Payment channels in the database: registering one (its state read from the chain), and the one operation a paid
 * call makes — take the caller's voucher and reserve the call's price from it — done in one transaction with the
 * channel's row locked (PostgreSQL) or under SQLite's single writer, so any number of concurrent calls on any
 * number of instances never spend past the highest voucher. The voucher is written before the call is served.
 *
 * Each running call's share is also a row of `channel_holds` (the channel's `in_flight` is their sum), which lapses
 * `HOLD_TTL_SECONDS` after it was taken or last raised: a process that dies mid-call leaves its row, and the sweeper
 * gives the lapsed hold back (sweepChannelHolds) so the channel's spend is again what ended calls spent and it can
 * close. A call's end, its raise and the sweeper each take the hold's row before the channel's (a new call writes
 * its new row last, which nobody waits on), so they never wait on each other in a cycle.
 */
import type { Kysely } from 'kysely';
import { Session } from 'mppx/tempo';
import { ApiError } from '../../http/errors.js';
import { newId, nowIso } from '../../ledger/ids.js';
import type { Db } from '../../store/db.js';
import type { Database, PaymentChannelTable } from '../../store/schema.js';
import { PaymentRefusal } from '../types.js';
import type { ChannelBackend, ChannelDescriptor } from './backend.js';

export interface Voucher {
  channelId: `0x${string}`;
  cumulative: bigint;
  signature: `0x${string}`;
}

const ZERO = '0x0000000000000000000000000000000000000000';

/** What a channel's owner and kasir see of it. */
export function channelView(row: PaymentChannelTable) {
  return {
    channel_id: row.id,
    payer: row.payer,
    signer: row.signer,
    deposit: row.deposit,
    settled: row.settled,
    accepted_cumulative: row.accepted,
    spent: row.spent,
    available: row.accepted - row.spent,
    in_flight: row.in_flight,
    units: row.units,
    close_requested_at: row.close_requested_at,
    finalized_at: row.finalized_at,
    close_tx: row.close_tx,
  };
}

/**
 * Registers (or refreshes, after a top-up) a channel opened on chain to this server's payee in its currency; the
 * deposit and settled amounts are read from the chain, never taken from the caller.
 */
export async function registerChannel(
  db: Db,
  backend: ChannelBackend,
  descriptor: ChannelDescriptor,
  expect: { payee: string; token: string },
): Promise<PaymentChannelTable> {
  if (descriptor.payee.toLowerCase() !== expect.payee.toLowerCase()) {
    throw new ApiError(
      'invalid_input',
      `the channel pays ${descriptor.payee}, not this server (${expect.payee})`,
      [{ field: 'descriptor.payee', message: `must be ${expect.payee}` }],
    );
  }
  if (descriptor.token.toLowerCase() !== expect.token.toLowerCase()) {
    throw new ApiError(
      'invalid_input',
      `the channel escrows ${descriptor.token}; this server takes ${expect.token}`,
      [{ field: 'descriptor.token', message: `must be ${expect.token}` }],
    );
  }
  const id = backend.idOf(descriptor).toLowerCase();
  const state = await backend.state(descriptor);
  if (!state)
    throw new ApiError('channel_not_found', `no open channel ${id} on chain ${backend.chainId}`, {
      channel_id: id,
    });
  const now = nowIso();
  const signer = (
    descriptor.authorizedSigner === ZERO ? descriptor.payer : descriptor.authorizedSigner
  ).toLowerCase();
  await db.kysely
    .insertInto('payment_channels')
    .values({
      id,
      payer: descriptor.payer.toLowerCase(),
      signer,
      descriptor: JSON.stringify(descriptor),
      deposit: Number(state.deposit),
      settled: Number(state.settled),
      accepted: 0,
      voucher_signature: null,
      spent: 0,
      in_flight: 0,
      units: 0,
      close_requested_at:
        state.closeRequestedAt > 0 ? new Date(state.closeRequestedAt * 1000).toISOString() : null,
      finalized_at: null,
      close_tx: null,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc
        .column('id')
        .doUpdateSet({ deposit: Number(state.deposit), settled: Number(state.settled), updated_at: now }),
    )
    .execute();
  return (await readChannel(db, id)) as PaymentChannelTable;
}

export function readChannel(db: Db, id: string): Promise<PaymentChannelTable | undefined> {
  return db.kysely
    .selectFrom('payment_channels')
    .selectAll()
    .where('id', '=', id.toLowerCase())
    .executeTakeFirst();
}

/** One call's hold on a channel: its row in `channel_holds`, and how long it lasts untouched. */
export interface ChannelHold {
  id: string;
  channelId: string;
  ttlSeconds: number;
}

/** When a hold taken or raised now lapses. */
const lapseAt = (ttlSeconds: number) => new Date(Date.now() + ttlSeconds * 1000).toISOString();

/** A new hold id for a call on `channelId`. */
export function newChannelHold(channelId: string, ttlSeconds: number): ChannelHold {
  return { id: newId('chold'), channelId: channelId.toLowerCase(), ttlSeconds };
}

/**
 * Takes `voucher` (equal to the highest accepted: a retry; lower: refused; above the deposit: refused; none once a
 * close was requested) and reserves `amount` of it for one call, as `hold` (none: a voucher taken on its own).
 * Refuses with what the caller must sign next when the vouchers do not cover the call.
 */
export async function spendFromChannel(
  db: Db,
  backend: ChannelBackend,
  voucher: Voucher,
  amount: number,
  hold?: ChannelHold,
): Promise<PaymentChannelTable> {
  const outcome = await db.kysely.transaction().execute(async (trx) => {
    let query = trx
      .selectFrom('payment_channels')
      .selectAll()
      .where('id', '=', voucher.channelId.toLowerCase());
    if (db.kind === 'postgres') query = query.forUpdate();
    const row = await query.executeTakeFirst();
    if (!row) {
      throw new ApiError(
        'channel_not_found',
        `unknown channel ${voucher.channelId}: register it with POST /v1/channels`,
      );
    }
    if (row.close_requested_at || row.finalized_at) {
      throw new PaymentRefusal('channel_finalized', `channel ${row.id} is closing or closed; open a new one`);
    }
    const cumulative = voucher.cumulative;
    if (cumulative < BigInt(row.accepted)) {
      throw new PaymentRefusal(
        'voucher_too_low',
        `the voucher (${cumulative}) is below the accepted ${row.accepted}`,
        {
          accepted_cumulative: row.accepted,
        },
      );
    }
    if (cumulative > BigInt(row.deposit)) {
      throw new PaymentRefusal(
        'voucher_above_deposit',
        `the voucher (${cumulative}) exceeds the deposit ${row.deposit}`,
        {
          deposit: row.deposit,
        },
      );
    }
    const retry = cumulative === BigInt(row.accepted) && voucher.signature === row.voucher_signature;
    if (!retry) {
      const signed = Session.Precompile.Voucher.verifyVoucher(
        backend.escrow,
        backend.chainId,
        { channelId: voucher.channelId, cumulativeAmount: cumulative, signature: voucher.signature },
        row.signer as `0x${string}`,
      );
      if (!signed) {
        throw new PaymentRefusal(
          'voucher_invalid_signature',
          `the voucher is not signed by the channel's signer ${row.signer}`,
        );
      }
    }
    const accepted = Number(cumulative);
    const covered = row.spent + amount <= accepted;
    const updated = await trx
      .updateTable('payment_channels')
      .set({
        accepted,
        voucher_signature: voucher.signature,
        spent: covered ? row.spent + amount : row.spent,
        in_flight: covered ? row.in_flight + amount : row.in_flight,
        updated_at: nowIso(),
      })
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    // A new row nobody else knows yet: written after the channel's row without any wait.
    if (covered && hold) {
      const now = nowIso();
      await trx
        .insertInto('channel_holds')
        .values({
          id: hold.id,
          channel_id: row.id,
          amount,
          created_at: now,
          expires_at: lapseAt(hold.ttlSeconds),
        })
        .execute();
    }
    return { covered, row: updated };
  });
  if (!outcome.covered) {
    const required = outcome.row.spent + amount;
    throw new PaymentRefusal(
      'payment_insufficient',
      `the channel's vouchers cover ${outcome.row.accepted - outcome.row.spent} more; sign a voucher for ${required}`,
      {
        required_cumulative: required,
        accepted_cumulative: outcome.row.accepted,
        deposit: outcome.row.deposit,
      },
    );
  }
  return outcome.row;
}

/**
 * Takes a voucher sent on its own (a metered stream asked for more): checked and persisted exactly as a call's
 * voucher is, with nothing reserved.
 */
export function acceptVoucher(
  db: Db,
  backend: ChannelBackend,
  voucher: Voucher,
): Promise<PaymentChannelTable> {
  return spendFromChannel(db, backend, voucher, 0);
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
 */
export async function settleChannelCall(
  db: Db,
  hold: ChannelHold,
  charged: number,
  served: boolean,
): Promise<SettledCall> {
  if (db.kind === 'postgres') {
    // One round trip for the usual end of a call (this runs once per paid call).
    const { rows } = await db.pool.query<SettledCall>({
      name: 'kasir_channel_settle',
      text: SETTLE_SQL,
      values: [hold.id, charged, served ? 1 : 0, nowIso()],
    });
    return rows[0] ?? settleLate(db.kysely, hold, charged, served);
  }
  return db.kysely.transaction().execute(async (trx): Promise<SettledCall> => {
    const mine = await trx
      .deleteFrom('channel_holds')
      .where('id', '=', hold.id)
      .returning('amount')
      .executeTakeFirst();
    if (!mine) return settleLate(trx, hold, charged, served);
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
    return { ...row, charged: kept };
  });
}

// $1 hold id, $2 charged, $3 1 when served, $4 now. No row: the hold was already given back.
const SETTLE_SQL = `
WITH h AS (
  DELETE FROM channel_holds WHERE id = $1 RETURNING channel_id, amount, LEAST($2::bigint, amount) AS kept
)
UPDATE payment_channels c SET spent = c.spent - (h.amount - h.kept), in_flight = c.in_flight - h.amount,
  units = c.units + $3::int, updated_at = $4
FROM h WHERE c.id = h.channel_id
RETURNING c.accepted, c.spent, h.kept AS charged`;

/** The end of a call whose hold the sweeper gave back: see settleChannelCall. */
async function settleLate(
  db: Kysely<Database>,
  hold: ChannelHold,
  charged: number,
  served: boolean,
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
    if (late) return { ...late, charged };
  }
  const row = await db
    .selectFrom('payment_channels')
    .select(['accepted', 'spent'])
    .where('id', '=', hold.channelId)
    .executeTakeFirstOrThrow();
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

/** Stops taking vouchers, closes on chain with the highest voucher (capturing what was spent), and finalizes. */
export async function closeChannel(
  db: Db,
  backend: ChannelBackend,
  id: string,
): Promise<PaymentChannelTable> {
  const now = nowIso();
  await db.kysely
    .updateTable('payment_channels')
    .set({ close_requested_at: now, updated_at: now })
    .where('id', '=', id)
    .where('close_requested_at', 'is', null)
    .execute();
  const row = await readChannel(db, id);
  if (!row) throw new ApiError('channel_not_found', `unknown channel ${id}`);
  if (row.finalized_at) return row;
  // What running calls hold is not spent yet (a call that fails gives it back): close once they have ended.
  if (row.in_flight > 0) {
    throw new ApiError(
      'conflict',
      `channel ${row.id} still has calls running (${row.in_flight} held); it takes no new vouchers — close again once they end`,
      undefined,
      { 'retry-after': '1' },
    );
  }
  const descriptor = JSON.parse(row.descriptor) as ChannelDescriptor;
  const tx =
    row.voucher_signature && row.accepted > 0
      ? await backend.close(
          descriptor,
          BigInt(row.accepted),
          BigInt(row.spent),
          row.voucher_signature as `0x${string}`,
        )
      : await backend.close(descriptor, 0n, 0n, '0x');
  await db.kysely
    .updateTable('payment_channels')
    .set({ finalized_at: nowIso(), close_tx: tx, settled: row.spent, updated_at: nowIso() })
    .where('id', '=', id)
    .execute();
  return (await readChannel(db, id)) as PaymentChannelTable;
}
