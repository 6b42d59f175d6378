/**
 * MPP's `tempo/session` wire for kasir's payment channels, so mppx's session client pays them unmodified: the
 * session challenge a 402 carries (signed with the MPP challenge secrets, mppx's Challenge), the session credential
 * a caller answers with (`Authorization: Payment`; actions open, voucher, topUp, close), which of those requests are
 * management only (no content: close, topUp, and a bodiless voucher or open, as mppx's server classifies them), and
 * the session receipt. The money side stays in store.ts; the chain side in backend.ts.
 */
import { Challenge, Credential } from 'mppx';
import type { Session } from 'mppx/tempo';
import { z } from 'zod';
import { ApiError } from '../../http/errors.js';
import { nowIso } from '../../ledger/ids.js';
import { PaymentRefusal } from '../types.js';
import { Descriptor } from './descriptor.js';
import type { Voucher } from './store.js';

export type SessionPayload = Session.Precompile.SessionCredentialPayload;

/** A caller's session credential: the challenge it answers and what it asks. */
export interface SessionCredential {
  challenge: Challenge.Challenge;
  payload: SessionPayload;
}

/** What a session challenge names: the channel's chain, escrow, payee and currency. */
export interface SessionTerms {
  chainId: number;
  escrow: `0x${string}`;
  payee: string;
  currency: string;
  realm: string;
  /** The deposit a new channel is suggested to open with (base units). */
  suggestedDeposit: number;
  /** The operator new channels must name (the key kasir closes with, when it is not the payee's), else null. */
  operator: `0x${string}` | null;
}

const ACTIONS = new Set(['open', 'voucher', 'topUp', 'close']);

/** The header's `tempo/session` credential, or null for any other header (another rail's, or none). */
export function sessionCredentialOf(header: string | undefined): SessionCredential | null {
  if (!header || !/^payment\s/i.test(header)) return null;
  // One request's header is asked about in turn by the management check, the MPP rail and the channel rail: the
  // last answer is kept, so a Payment credential is decoded once per request rather than three times.
  if (lastRead?.header !== header) lastRead = { header, credential: decodeSession(header) };
  return lastRead.credential;
}

let lastRead: { header: string; credential: SessionCredential | null } | undefined;

function decodeSession(header: string): SessionCredential | null {
  try {
    const credential = Credential.deserialize(header);
    const { challenge } = credential;
    if (challenge.method !== 'tempo' || challenge.intent !== 'session') return null;
    return { challenge, payload: credential.payload as SessionPayload };
  } catch {
    return null;
  }
}

/** True when the header is a `tempo/session` credential (the channel rail's, not the MPP charge rail's). */
export const isSessionCredential = (header: string | undefined) => sessionCredentialOf(header) !== null;

/**
 * Whether a request carrying `payload` only manages the channel (answered 204 without running the route): close and
 * topUp always; a voucher or open sent with HEAD, or with a POST without a query or a body (mppx's classifier).
 */
export function isManagement(
  payload: SessionPayload,
  req: { method: string; hasQuery: boolean; hasBody: boolean },
): boolean {
  if (payload.action === 'close' || payload.action === 'topUp') return true;
  if (req.method === 'HEAD') return true;
  return req.method === 'POST' && !req.hasQuery && !req.hasBody;
}

/** A session challenge for a call costing `price` base units (one request is one unit). */
export function sessionChallenge(
  terms: SessionTerms,
  secret: string,
  price: number,
  options: { expires: string; description?: string },
): Challenge.Challenge {
  return Challenge.from({
    secretKey: secret,
    realm: terms.realm,
    method: 'tempo',
    intent: 'session',
    expires: options.expires,
    ...(options.description ? { description: options.description } : {}),
    request: {
      amount: String(price),
      currency: terms.currency,
      recipient: terms.payee,
      unitType: 'request',
      suggestedDeposit: String(terms.suggestedDeposit),
      methodDetails: {
        chainId: terms.chainId,
        escrowContract: terms.escrow,
        sessionProtocol: 'v2',
        ...(terms.operator ? { operator: terms.operator } : {}),
      },
    },
  });
}

/**
 * Checks a session credential before anything it asks is done: its challenge was issued here (one of `secrets`
 * signed it) and has not expired, and its payload is one this server takes. Refusals name what is wrong (4xx).
 */
export function checkSessionCredential(credential: SessionCredential, secrets: string[]): void {
  const { challenge, payload } = credential;
  if (!secrets.some((secret) => Challenge.verify(challenge, { secretKey: secret }))) {
    throw new PaymentRefusal(
      'payment_challenge_invalid',
      'the session challenge was not issued by this server (or has been retired)',
    );
  }
  if (challenge.expires && Date.parse(challenge.expires) < Date.now()) {
    throw new PaymentRefusal('payment_expired', `the session challenge expired at ${challenge.expires}`);
  }
  const action = (payload as { action?: unknown } | undefined)?.action;
  if (typeof action !== 'string' || !ACTIONS.has(action)) {
    throw new PaymentRefusal(
      'payment_malformed',
      'payload.action must be one of open, voucher, topUp, close',
    );
  }
  if (!/^0x[0-9a-fA-F]{64}$/.test(String((payload as { channelId?: unknown }).channelId))) {
    throw new PaymentRefusal('payment_malformed', 'payload.channelId must be a 32-byte hex channel id');
  }
}

/** The voucher an open, voucher or close payload carries. */
export function voucherOf(payload: SessionPayload): Voucher {
  if (payload.action === 'topUp') throw new PaymentRefusal('payment_malformed', 'a topUp carries no voucher');
  const { cumulativeAmount, signature } = payload;
  if (typeof cumulativeAmount !== 'string' || !/^\d{1,30}$/.test(cumulativeAmount)) {
    throw new PaymentRefusal(
      'payment_malformed',
      'payload.cumulativeAmount must be base units, a decimal string',
    );
  }
  if (typeof signature !== 'string' || !/^0x[0-9a-fA-F]{130}$/.test(signature)) {
    throw new PaymentRefusal('payment_malformed', 'payload.signature must be a 65-byte voucher signature');
  }
  return {
    channelId: payload.channelId as `0x${string}`,
    cumulative: BigInt(cumulativeAmount),
    signature: signature as `0x${string}`,
  };
}

/** What an open or a top-up must carry besides its voucher: the channel's descriptor and the signed transaction. */
const ChannelTransactionPayload = z.object({
  descriptor: Descriptor,
  transaction: z.string().regex(/^0x(?:[0-9a-fA-F]{2})+$/, 'must be the signed transaction, as hex'),
});

/** An open or top-up payload's descriptor and transaction, checked; a 400 naming each bad field otherwise. */
export function channelTransactionOf(payload: SessionPayload): z.infer<typeof ChannelTransactionPayload> & {
  descriptor: { [K in keyof z.infer<typeof Descriptor>]: `0x${string}` };
  transaction: `0x${string}`;
} {
  const parsed = ChannelTransactionPayload.safeParse(payload);
  if (!parsed.success) {
    throw new ApiError(
      'invalid_input',
      `the ${payload.action} credential is incomplete`,
      parsed.error.issues.map((i) => ({ field: `payload.${i.path.join('.')}`, message: i.message })),
    );
  }
  return parsed.data as ReturnType<typeof channelTransactionOf>;
}

/** A session receipt (what mppx's client reads from `Payment-Receipt` and `event: payment-receipt`). */
export function sessionReceipt(fields: {
  challengeId: string;
  channelId: string;
  accepted: number;
  spent: number;
  txHash?: string | null;
}) {
  return {
    method: 'tempo',
    intent: 'session',
    status: 'success',
    timestamp: nowIso(),
    reference: fields.channelId,
    challengeId: fields.challengeId,
    channelId: fields.channelId,
    acceptedCumulative: String(fields.accepted),
    spent: String(fields.spent),
    ...(fields.txHash ? { txHash: fields.txHash } : {}),
  };
}

export const encodeReceipt = (receipt: unknown) => Buffer.from(JSON.stringify(receipt)).toString('base64url');
