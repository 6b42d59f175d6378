/**
 * A session credential that only manages its channel, answered before any paid route runs (mppx's session client
 * sends these to the URL it pays): a voucher sent on its own (what a metered stream's `payment-need-voucher` asked
 * for; it wakes the stream), an open without a call, a top-up (the payer's signed transaction, broadcast here), and
 * a cooperative close (the payer's final voucher, then the channel closed on chain capturing what was spent).
 * Each answers 200 with the session receipt (header and body); bad input is a 4xx naming what is wrong.
 */
import { ApiError } from '../../http/errors.js';
import { type Exchange, sendJson } from '../../http/exchange.js';
import type { Db } from '../../store/db.js';
import type { ChannelBackend } from './backend.js';
import { sessionVoucher } from './rail.js';
import {
  channelTransactionOf,
  checkSessionCredential,
  encodeReceipt,
  isManagement,
  type SessionCredential,
  sessionCredentialOf,
  sessionReceipt,
  voucherOf,
} from './session-wire.js';
import { acceptVoucher, closeChannel, readChannel, registerChannel } from './store.js';
import type { VoucherBell } from './voucher-bell.js';

export interface ChannelManagementDeps {
  db: Db;
  backend: ChannelBackend;
  payee: string;
  currency: string;
  bell: VoucherBell;
  secrets: () => Promise<string[]>;
}

/** The answer to a management credential on `x`, or null when `x` is not one (a paid call, or another rail's). */
export function channelManagement(deps: ChannelManagementDeps, x: Exchange): Promise<Response> | null {
  const credential = sessionCredentialOf(x.header('authorization'));
  if (!credential) return null;
  const length = Number(x.header('content-length') ?? 0);
  // mppx's management requests carry nothing but the credential: no body, so no length, encoding or type either.
  const hasBody =
    length > 0 || x.header('transfer-encoding') !== undefined || x.header('content-type') !== undefined;
  if (!isManagement(credential.payload, { method: x.method, hasQuery: false, hasBody })) return null;
  // 200 with the receipt as the body too (mppx's server answers 204; its client takes any 2xx).
  return manage(deps, credential).then((receipt) =>
    sendJson(x, 200, JSON.stringify(receipt), {
      'payment-receipt': encodeReceipt(receipt),
      'cache-control': 'no-store',
    }),
  );
}

async function manage(deps: ChannelManagementDeps, credential: SessionCredential) {
  const { db, backend } = deps;
  const { payload, challenge } = credential;
  // The spend of ended calls: what running calls hold may still be given back (a receipt's spend never goes down).
  const receiptOf = (row: {
    id: string;
    accepted: number;
    spent: number;
    in_flight: number;
    close_tx?: string | null;
  }) =>
    sessionReceipt({
      challengeId: challenge.id,
      channelId: row.id,
      accepted: row.accepted,
      spent: row.spent - row.in_flight,
      txHash: row.close_tx ?? null,
    });
  if (payload.action === 'open' || payload.action === 'voucher') {
    const row = await acceptVoucher(db, backend, await sessionVoucher(deps, credential));
    deps.bell.ring(row.id);
    return receiptOf(row);
  }
  checkSessionCredential(credential, await deps.secrets());
  const id = payload.channelId.toLowerCase();
  const known = await readChannel(db, id);
  if (!known) {
    throw new ApiError(
      'channel_not_found',
      `unknown channel ${id}: open it with a session credential first`,
      {
        channel_id: id,
      },
    );
  }
  if (payload.action === 'topUp') {
    if (typeof payload.additionalDeposit !== 'string' || !/^\d{1,30}$/.test(payload.additionalDeposit)) {
      throw new ApiError('invalid_input', 'payload.additionalDeposit must be base units, a decimal string', [
        { field: 'payload.additionalDeposit', message: 'must be a decimal string of base units' },
      ]);
    }
    const { transaction } = channelTransactionOf(payload);
    const descriptor = JSON.parse(known.descriptor);
    await backend.broadcastTopUp({
      channelId: id as `0x${string}`,
      descriptor,
      transaction,
      additionalDeposit: BigInt(payload.additionalDeposit),
      ...(challenge.expires ? { challengeExpires: challenge.expires } : {}),
    });
    const row = await registerChannel(db, backend, descriptor, { payee: deps.payee, token: deps.currency });
    return receiptOf(row);
  }
  // close: the payer's final voucher is taken like any other, then the channel closes capturing what was spent.
  if (!known.finalized_at) {
    if (!known.close_requested_at) await acceptVoucher(db, backend, voucherOf(payload));
    await closeChannel(db, backend, id);
  }
  return receiptOf((await readChannel(db, id)) ?? known);
}
