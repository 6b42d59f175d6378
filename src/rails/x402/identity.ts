/**
 * What makes a wallet payment unique on its chain, so one payment buys one call: an EVM authorization's payer and
 * nonce (EIP-3009, or Permit2's), a Solana transaction, an Algorand group id. Read off the payload before it runs
 * anything.
 */
import { createHash } from 'node:crypto';
import type { PaymentPayload } from '@x402/core/types';
import { decodeSignedTransaction } from 'algosdk';
import type { ChainKind } from '../../config/x402.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}

/** An EVM payload's authorization: EIP-3009's `authorization` or Permit2's `permit2Authorization`. */
function evmAuthorization(body: Record<string, unknown>): { kind: string; auth: Record<string, unknown> } {
  if (body.permit2Authorization !== undefined)
    return { kind: 'permit2', auth: record(body.permit2Authorization) };
  return { kind: 'eip3009', auth: record(body.authorization) };
}

/** The payer an EVM payload names (its authorization's `from`), before verification confirms it. */
export function claimedPayer(payload: PaymentPayload): string | null {
  const { from } = evmAuthorization(record(payload.payload)).auth;
  return typeof from === 'string' ? from.toLowerCase() : null;
}

/** The payment's identity as a SHA-256 hex string, or null when the payload has none of the expected shape. */
export function paymentIdentity(payload: PaymentPayload, kind: ChainKind): string | null {
  const body = record(payload.payload);
  const network = payload.accepted.network;
  if (kind === 'evm') {
    const { kind: method, auth } = evmAuthorization(body);
    if (typeof auth.from !== 'string' || typeof auth.nonce !== 'string') return null;
    // EIP-3009 nonces are bytes32, Permit2's uint256: each names its own space (Permit2's under its own prefix).
    const prefix = method === 'permit2' ? `${network}|permit2` : network;
    return sha256(`${prefix}|${auth.from.toLowerCase()}|${auth.nonce.toLowerCase()}`);
  }
  if (kind === 'svm') {
    return typeof body.transaction === 'string' ? sha256(`${network}|${body.transaction}`) : null;
  }
  const group = Array.isArray(body.paymentGroup) ? body.paymentGroup : [];
  const index = typeof body.paymentIndex === 'number' ? body.paymentIndex : -1;
  const txn = group[index];
  if (typeof txn !== 'string') return null;
  try {
    const groupId = decodeSignedTransaction(Buffer.from(txn, 'base64')).txn.group;
    if (groupId) return sha256(`${network}|group|${Buffer.from(groupId).toString('base64')}`);
  } catch {
    // Not a signed transaction: the facilitator's verification refuses it.
  }
  return sha256(`${network}|txn|${txn}`);
}
