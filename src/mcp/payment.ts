/**
 * Payments over MCP, mapped to and from the HTTP checkout's own headers, so every rail pays a tool call exactly as it
 * pays the route:
 * - MPP as mppx carries it: the credential in `_meta["org.paymentauth/credential"]` (→ `Authorization: Payment`),
 *   the receipt in `_meta["org.paymentauth/receipt"]`, a payment-required JSON-RPC error (-32042, or -32043 for a
 *   refused payment) whose `data.challenges` are the 402's `WWW-Authenticate: Payment` challenges.
 * - x402 as its MCP transport describes it: the PaymentPayload in `_meta["x402/payment"]` (→ `PAYMENT-SIGNATURE`),
 *   the settlement in `_meta["x402/payment-response"]`. The two conventions answer an unpaid call differently (MPP:
 *   a JSON-RPC error; x402: a tool result with `isError`), so kasir has an MCP endpoint for each: on `/mcp` an
 *   unpaid call gets the JSON-RPC error above, with x402's PaymentRequired (`x402Version`, `accepts`, `resource`) in
 *   its `data`; on `/x402/mcp` it gets x402's tool result, which also carries the MPP challenges in
 *   `_meta["org.paymentauth/payment-required"]` (where mppx's client reads them from a result). A refused x402
 *   payment, whose caller is known to speak x402, gets x402's tool result on either.
 * - A prepaid key: the `Authorization: Bearer` header of the MCP HTTP request itself.
 * - kasir's own: `_meta["kasir/idempotency-key"]` (→ `Idempotency-Key`), `_meta["kasir/max-price"]`
 *   (→ `X-Max-Price`, micro-USD), and a payment channel's voucher in `_meta["kasir/voucher"]` (→ `Payment-Voucher`).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodePaymentSignatureHeader,
} from '@x402/core/http';
import type { PaymentPayload } from '@x402/core/types';
import { Challenge, Credential, Mcp, Receipt } from 'mppx';
import { invalidInput } from '../http/errors.js';
import type { Answer } from './answer.js';
import { RpcError } from './rpc-error.js';

export const META = {
  mppCredential: Mcp.credentialMetaKey,
  mppReceipt: Mcp.receiptMetaKey,
  x402Payment: 'x402/payment',
  x402Response: 'x402/payment-response',
  idempotencyKey: 'kasir/idempotency-key',
  maxPrice: 'kasir/max-price',
  channelVoucher: 'kasir/voucher',
} as const;

/** mppx's JSON-RPC codes: payment required, and a payment that was refused (a fresh challenge comes with it). */
export const PAYMENT_REQUIRED_CODE = Mcp.paymentRequiredCode;
export const PAYMENT_REFUSED_CODE = Mcp.paymentVerificationFailedCode;

type Meta = Record<string, unknown> | undefined;

/** The HTTP headers a tool call's `_meta` stands for (a bad payment value is invalid params, naming its key). */
export function headersFromMeta(meta: Meta): Record<string, string> {
  const out: Record<string, string> = {};
  if (!meta) return out;
  const credential = meta[META.mppCredential];
  if (credential !== undefined) {
    try {
      const header =
        typeof credential === 'string'
          ? credential.replace(/^Payment\s+/i, '')
          : Credential.serialize(credential as Credential.Credential).replace(/^Payment\s+/i, '');
      out.authorization = `Payment ${header}`;
    } catch {
      throw invalidInput([{ field: `_meta.${META.mppCredential}`, message: 'is not an MPP credential' }]);
    }
  }
  const x402 = meta[META.x402Payment];
  if (x402 !== undefined) {
    if (typeof x402 !== 'object' || x402 === null)
      throw invalidInput([
        { field: `_meta.${META.x402Payment}`, message: 'must be an x402 PaymentPayload object' },
      ]);
    out['payment-signature'] = encodePaymentSignatureHeader(x402 as PaymentPayload);
  }
  // A payment channel's voucher, as its `Payment-Voucher` header value (`channel="0x…", cumulative="…", signature="0x…"`).
  const voucher = meta[META.channelVoucher];
  if (voucher !== undefined) {
    if (typeof voucher !== 'string')
      throw invalidInput([
        { field: `_meta.${META.channelVoucher}`, message: 'must be a Payment-Voucher header value' },
      ]);
    out['payment-voucher'] = voucher;
  }
  const key = meta[META.idempotencyKey];
  if (key !== undefined) out['idempotency-key'] = String(key);
  const max = meta[META.maxPrice];
  if (max !== undefined) out['x-max-price'] = String(max);
  return out;
}

/** Whether those headers pay from a wallet or a channel (its call runs within its request: no job is made for it). */
export function paysInRequest(headers: Record<string, string>): boolean {
  return (
    headers.authorization !== undefined ||
    headers['payment-signature'] !== undefined ||
    headers['payment-voucher'] !== undefined
  );
}

/** The payment facts of a paid answer, for the result's `_meta`: the MPP receipt and the x402 settlement. */
export function receiptMeta(res: Answer, credentialChallengeId: string | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const mpp = res.headers.get('payment-receipt');
  if (mpp) {
    try {
      out[META.mppReceipt] = { ...Receipt.deserialize(mpp), challengeId: credentialChallengeId };
    } catch {
      // A receipt kasir could not read back is still in the answer's own receipt.
    }
  }
  const x402 = res.headers.get('payment-response');
  if (x402) {
    try {
      out[META.x402Response] = decodePaymentResponseHeader(x402);
    } catch {
      // As above.
    }
  }
  return out;
}

/** The id of the challenge an MPP credential in `_meta` answers, to name it in the receipt. */
export function credentialChallengeId(meta: Meta): string | undefined {
  const value = meta?.[META.mppCredential];
  if (typeof value === 'object' && value !== null) {
    const id = (value as { challenge?: { id?: unknown } }).challenge?.id;
    return typeof id === 'string' ? id : undefined;
  }
  if (typeof value === 'string') {
    try {
      return Credential.deserialize(value.replace(/^Payment\s+/i, '')).challenge.id;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The x402 PaymentRequired of a 402 answer (its `PAYMENT-REQUIRED` header), when the x402 rail listed one. */
function x402RequiredOf(res: Answer): Record<string, unknown> {
  const header = res.headers.get('payment-required');
  if (!header) return {};
  try {
    return decodePaymentRequiredHeader(header) as unknown as Record<string, unknown>;
  } catch {
    return {};
  }
}

/**
 * A refused x402 payment, answered as the x402 MCP transport describes it to a caller that paid by x402: a tool
 * result with `isError` and the fresh PaymentRequired in the `x402/error` wrapper of its text. kasir's error and the
 * settlement, if any, are in `_meta`.
 */
export function x402RefusalResult(res: Answer, body: Record<string, unknown>): CallToolResult {
  const required = x402RequiredOf(res);
  const error = (body.error ?? {}) as { message?: string; details?: unknown };
  const message = error.message ?? 'the x402 payment was refused';
  const settlement = res.headers.get('payment-response');
  let response: unknown;
  try {
    response = settlement ? decodePaymentResponseHeader(settlement) : undefined;
  } catch {
    response = undefined;
  }
  return {
    isError: true,
    content: [x402ErrorText(required, message)],
    _meta: { 'kasir/error': body.error, ...(response ? { [META.x402Response]: response } : {}) },
  };
}

/**
 * The first content block of x402's payment-required tool result: the PaymentRequired in the transport's `x402/error`
 * wrapper (its required form; the optional `structuredContent` copy is left out, being the paid answer's, as the
 * tool's outputSchema declares and the SDK's client checks).
 */
function x402ErrorText(required: Record<string, unknown>, message: string): { type: 'text'; text: string } {
  return {
    type: 'text',
    text: JSON.stringify({ 'x402/error': { code: 402, message, data: { ...required, error: message } } }),
  };
}

/**
 * A 402 answer as the payment-required JSON-RPC error: every rail the route lists at the quote (kasir's own body:
 * `quote`, `rails`), the MPP challenges under `challenges` and x402's PaymentRequired beside them.
 */
export function paymentRequiredError(res: Answer, body: Record<string, unknown>): RpcError {
  const { code, message, data } = paymentRequired(res, body);
  return new RpcError(code, message, data);
}

/**
 * A 402 answer as x402's MCP transport answers an unpaid call (the `/x402/mcp` endpoint): a tool result with
 * `isError`, x402's PaymentRequired in the `x402/error` wrapper of its first text, and in `_meta` the same data the
 * JSON-RPC error carries (every rail at the quote, the MPP challenges) under mppx's payment-required key, where
 * mppx's client looks for challenges in a result.
 */
export function paymentRequiredResult(res: Answer, body: Record<string, unknown>): CallToolResult {
  const { message, data, x402 } = paymentRequired(res, body);
  return {
    isError: true,
    content: [x402ErrorText(x402, message)],
    _meta: { [Mcp.paymentRequiredMetaKey]: data, 'kasir/error': body.error },
  };
}

/** What a 402 answer says, for either form: every rail the route lists, the MPP challenges, x402's PaymentRequired. */
function paymentRequired(
  res: Answer,
  body: Record<string, unknown>,
): { code: number; message: string; data: Record<string, unknown>; x402: Record<string, unknown> } {
  let challenges: Challenge.Challenge[] = [];
  try {
    challenges = Challenge.fromHeadersList(res.headers);
  } catch {
    challenges = [];
  }
  const error = (body.error ?? {}) as { code?: string; message?: string; details?: unknown };
  const details = typeof error.details === 'object' && error.details !== null ? error.details : {};
  const refused = error.code !== 'payment_required';
  const x402 = x402RequiredOf(res);
  return {
    x402,
    code: refused ? PAYMENT_REFUSED_CODE : PAYMENT_REQUIRED_CODE,
    message: error.message ?? 'Payment Required',
    data: {
      httpStatus: 402,
      ...x402,
      ...details,
      error,
      challenges: challenges.map((c) => ({ ...c })),
    },
  };
}
