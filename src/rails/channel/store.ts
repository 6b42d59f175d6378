/** Payment channels' rows: a channel registered, its vouchers checked and accepted, calls spent from it, and its close. */
import { ApiError } from '../../http/errors.js';
import { nowIso } from '../../ledger/ids.js';
import type { Db } from '../../store/db.js';
import type { PaymentChannelTable } from '../../store/schema.js';
import { PaymentRefusal } from '../types.js';
import type { ChannelBackend, ChannelDescriptor } from './backend.js';
import { type ChannelHold, lapseAt } from './holds.js';
import { voucherSignedBy } from './voucher-signature.js';

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
      const signed = await voucherSignedBy(
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
