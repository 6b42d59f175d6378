/**
 * The payment-channel rail: a payer with a TIP-1034 channel on Tempo to this server's payee pays any /v1/* paid call
 * with an off-chain cumulative voucher — as MPP's `tempo/session` (mppx's session client: the 402's session
 * challenge, then `Authorization: Payment` credentials that open the channel and carry vouchers; session-wire.ts),
 * or, for a channel opened by hand and registered (POST /v1/channels), in `Payment-Voucher`. The
 * voucher is checked (signature, monotonic, within the deposit) and the call's price reserved from it in the
 * database before the call runs; a failed call gives the reservation back; POST /v1/channels/{id}/close settles.
 * A call's reservation lapses `holdTtlSeconds` after it was taken or last kept alive (its process renews it a third of
 * that apart while the call runs, however long): the sweeper gives back what a process that died mid-call left held.
 * This file takes the voucher and reserves the call's price from it; authorization.ts holds, raises and settles it.
 */

import { Challenge } from 'mppx';
import { ApiError } from '../../http/errors.js';
import type { Db } from '../../store/db.js';
import type { PaidRequest, Payer, Rail } from '../types.js';
import { PaymentRefusal } from '../types.js';
import { ChannelAuthorization } from './authorization.js';
import type { ChannelBackend } from './backend.js';
import { newChannelHold } from './holds.js';
import { channelOfPath } from './paths.js';
import {
  channelTransactionOf,
  checkSessionCredential,
  type SessionCredential,
  type SessionTerms,
  sessionChallenge,
  sessionCredentialOf,
  voucherOf,
} from './session-wire.js';
import { readChannel, registerChannel, spendFromChannel, type Voucher } from './store.js';
import type { VoucherBell } from './voucher-bell.js';

export const PAYMENT_VOUCHER = 'payment-voucher';

/** `channel="0x…", cumulative="123", signature="0x…"` (parameters in any order, quotes optional). */
export function parseVoucher(header: string): Voucher | null {
  const params: Record<string, string> = {};
  for (const m of header.matchAll(/([a-z]+)\s*=\s*"?([^",\s]+)"?/gi))
    params[(m[1] as string).toLowerCase()] = m[2] as string;
  const { channel, cumulative, signature } = params;
  if (!channel || !/^0x[0-9a-fA-F]{64}$/.test(channel)) return null;
  if (!cumulative || !/^\d{1,30}$/.test(cumulative)) return null;
  if (!signature || !/^0x[0-9a-fA-F]{130}$/.test(signature)) return null;
  return {
    channelId: channel as `0x${string}`,
    cumulative: BigInt(cumulative),
    signature: signature as `0x${string}`,
  };
}

export interface ChannelRailDeps {
  db: Db;
  /** Wakes this process's waiting metered streams when a voucher for their channel is accepted. */
  bell: VoucherBell;
  backend: ChannelBackend;
  payee: string;
  currency: string;
  /** How long a call's hold lasts untouched before the sweeper takes its process for dead (HOLD_TTL_SECONDS). */
  holdTtlSeconds: number;
  /** The realm session challenges name (MPP_REALM, else the public host). */
  realm: string;
  /** The MPP challenge secrets, newest first (the first signs session challenges, each verifies). */
  secrets: () => Promise<string[]>;
  /** How long a session challenge can be answered (MPP_CHALLENGE_TTL_SECONDS). */
  challengeTtlSeconds: number;
  /** The deposit session challenges suggest (MPP_CHANNEL_SUGGESTED_DEPOSIT, base units). */
  suggestedDeposit: number;
}

/** What identify found: a session credential, a `Payment-Voucher`, or an unreadable one (null). */
type ChannelDetail = { session: SessionCredential } | { voucher: Voucher | null };

/**
 * The voucher a paid call carries, after a session credential's own work: its challenge checked, and an `open`'s
 * transaction broadcast and its channel registered (so the voucher it carries can be taken).
 */
export async function sessionVoucher(
  deps: Pick<ChannelRailDeps, 'db' | 'backend' | 'payee' | 'currency' | 'secrets'>,
  credential: SessionCredential,
): Promise<Voucher> {
  checkSessionCredential(credential, await deps.secrets());
  const { payload, challenge } = credential;
  // An open already taken (a retry of its credential) is not broadcast again: its voucher is taken as any other.
  if (payload.action === 'open' && !(await readChannel(deps.db, payload.channelId))) {
    const { descriptor, transaction } = channelTransactionOf(payload);
    const operator = operatorOf(deps);
    if (operator && descriptor.operator.toLowerCase() !== operator.toLowerCase()) {
      throw new ApiError('invalid_input', `a channel to this server must name ${operator} as its operator`, [
        { field: 'payload.descriptor.operator', message: `must be ${operator}` },
      ]);
    }
    const expect = { payee: deps.payee, token: deps.currency };
    const opened = await deps.backend.broadcastOpen(
      {
        channelId: payload.channelId,
        descriptor,
        transaction,
        ...(challenge.expires ? { challengeExpires: challenge.expires } : {}),
      },
      expect,
    );
    await registerChannel(deps.db, deps.backend, opened, expect);
  }
  return voucherOf(payload);
}

/** The session terms of a rail's deps: what its challenges name. */
export const sessionTerms = (deps: ChannelRailDeps): SessionTerms => ({
  chainId: deps.backend.chainId,
  escrow: deps.backend.escrow,
  payee: deps.payee,
  currency: deps.currency,
  realm: deps.realm,
  suggestedDeposit: deps.suggestedDeposit,
  operator: operatorOf(deps),
});

/** The operator a channel must name for kasir to close it: none when kasir closes as the payee itself. */
function operatorOf(deps: Pick<ChannelRailDeps, 'backend' | 'payee'>): `0x${string}` | null {
  const { closer } = deps.backend;
  if (/^0x0{40}$/i.test(closer) || closer.toLowerCase() === deps.payee.toLowerCase()) return null;
  return closer;
}

export function createChannelRail(deps: ChannelRailDeps): Rail {
  const { db, backend } = deps;
  const holdContext = {
    db,
    bell: deps.bell,
    holdTtlSeconds: deps.holdTtlSeconds,
    network: `eip155:${backend.chainId}`,
  };

  /** Takes the caller's voucher and reserves `amount` of it for the call. */
  async function reserve(payer: Payer, req: PaidRequest, amount: number): Promise<ChannelAuthorization> {
    const detail = payer.detail as ChannelDetail;
    const session = 'session' in detail ? detail.session : null;
    const voucher = session
      ? await sessionVoucher(deps, session)
      : (detail as { voucher: Voucher | null }).voucher;
    if (!voucher) {
      throw new PaymentRefusal(
        'payment_malformed',
        'Payment-Voucher must be channel="0x<64 hex>", cumulative="<base units>", signature="0x<130 hex>"',
      );
    }
    const bound = channelOfPath(req.path);
    if (bound !== null && bound !== voucher.channelId.toLowerCase()) {
      throw new PaymentRefusal(
        'payment_malformed',
        `this route is paid from channel ${bound}; the Payment-Voucher is for ${voucher.channelId}`,
      );
    }
    const hold = newChannelHold(voucher.channelId, deps.holdTtlSeconds);
    const row = await spendFromChannel(db, backend, voucher, amount, hold);
    deps.bell.ring(row.id);
    const address = `did:pkh:eip155:${backend.chainId}:${row.payer}`;
    return new ChannelAuthorization(
      holdContext,
      { ...payer, address },
      amount,
      hold,
      req.path,
      row.accepted,
      row.spent - row.in_flight,
      session?.challenge.id ?? null,
    );
  }

  return {
    id: 'channel',
    title: 'Payment channel: off-chain vouchers on a Tempo escrow channel',
    priceClass: 'wallet',
    carries: (req) =>
      req.header(PAYMENT_VOUCHER) !== undefined || sessionCredentialOf(req.header('authorization')) !== null,

    async identify(req) {
      const session = sessionCredentialOf(req.header('authorization'));
      const voucher = session ? null : parseVoucher(req.header(PAYMENT_VOUCHER) ?? '');
      const channelId = session ? String(session.payload?.channelId ?? '') : voucher?.channelId;
      const detail: ChannelDetail = session ? { session } : { voucher };
      return {
        rail: 'channel',
        accountId: null,
        keyId: null,
        address: null,
        // Idempotency-Key replays are scoped to the channel: only its voucher signer can have spent from it.
        scope: channelId?.toLowerCase() || 'unreadable',
        detail,
      };
    },

    authorize: (payer, pricing, req) => reserve(payer, req, pricing.quote.costMicroUsd),
    authorizeMetered: (payer, _pricing, req, first) => reserve(payer, req, first),

    async challenge(pricing) {
      const [secret] = await deps.secrets();
      const expires = new Date(Date.now() + deps.challengeTtlSeconds * 1000).toISOString();
      const challenge = secret
        ? // A metered stream's voucher covers only its input and first tranche: the challenge asks for that much.
          sessionChallenge(
            sessionTerms(deps),
            secret,
            pricing.firstTrancheMicroUsd ?? pricing.quote.costMicroUsd,
            {
              expires,
              description: pricing.description,
            },
          )
        : null;
      return {
        headers: challenge ? [['www-authenticate', Challenge.serialize(challenge)]] : [],
        body: {
          rail: 'channel',
          how: 'Pay with MPP\'s tempo/session (mppx\'s session client opens a TIP-1034 channel with the session challenge in WWW-Authenticate and pays each call by voucher), or open a channel on Tempo to the payee in the currency below by hand, register it with POST /v1/channels {descriptor}, then send Payment-Voucher: channel="<id>", cumulative="<total base units>", signature="<EIP-712 voucher>" with each call; the cumulative must cover everything spent so far plus this call.',
          chain_id: backend.chainId,
          escrow: backend.escrow,
          payee: deps.payee,
          currency: deps.currency,
          price: String(pricing.quote.costMicroUsd),
        },
      };
    },

    describe(baseUrl) {
      return {
        id: 'channel',
        title: 'Payment channel (Tempo escrow, off-chain vouchers)',
        howToPay:
          "Pay with MPP's tempo/session intent: mppx's session client (`sessionManager` from `mppx/client`) answers " +
          'the session challenge of the 402 by opening a TIP-1034 channel and pays every call by voucher, answers a ' +
          "metered stream's `payment-need-voucher` by itself, and closes with `close()`. Or open a TIP-1034 channel " +
          'on Tempo to the payee this server names in its 402 by hand, register it with ' +
          '`POST /v1/channels {"descriptor": {...}}`, then pay each /v1/* call with `Payment-Voucher: channel="<id>", ' +
          'cumulative="<total>", signature="<voucher>"` (cumulative in base units, covering all calls so far). ' +
          'A streamed chat is metered: when it sends `event: payment-need-voucher`, POST a voucher for its ' +
          '`requiredCumulative` to `/v1/channels/<id>/vouchers` and it resumes. `/v1/channels/<id>/infer` and ' +
          "`/v1/channels/<id>/chat/completions` take only that channel's vouchers. " +
          '`POST /v1/channels/<id>/close` settles on chain.',
        example: `curl ${baseUrl}/v1/channels/0x…   # the channel's deposit, accepted voucher and spend`,
      };
    },
  };
}
