/**
 * Midtrans as the top-up gateway, through its documented Core API over HTTP (two calls: the official Node client
 * brings axios and no types for them). Charge: POST {MIDTRANS_BASE_URL}/v2/charge with payment_type "qris",
 * Basic auth of the server key, X-Override-Notification naming kasir's endpoint and custom_expiry. Notification:
 * signature_key = SHA-512 hex of order_id + status_code + gross_amount + server key, compared in constant time.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { GatewayError, type NoticeCheck, type PaymentGateway, type QrisCharge } from './gateway.js';

const ChargeResponse = z.object({
  status_code: z.string(),
  status_message: z.string().optional(),
  transaction_id: z.string().optional(),
  qr_string: z.string().optional(),
});

const Notification = z.object({
  order_id: z.string().min(1),
  status_code: z.string().min(1),
  gross_amount: z.string().regex(/^\d+(\.\d{1,2})?$/),
  signature_key: z.string().min(1),
  transaction_status: z.string().min(1),
  transaction_id: z.string().optional(),
  fraud_status: z.string().optional(),
  payment_type: z.string().optional(),
});

export function midtransSignature(
  orderId: string,
  statusCode: string,
  grossAmount: string,
  serverKey: string,
): string {
  return createHash('sha512')
    .update(orderId + statusCode + grossAmount + serverKey)
    .digest('hex');
}

/** "50000.00" → 50000; a fraction of a rupiah is refused (QRIS amounts are whole rupiah). */
function wholeRupiah(gross: string): number | null {
  const [whole, frac = ''] = gross.split('.');
  if (/[1-9]/.test(frac)) return null;
  const n = Number(whole);
  return Number.isSafeInteger(n) ? n : null;
}

const CLOSED = new Set(['expire', 'cancel', 'deny', 'failure']);

export function createMidtrans(opts: {
  baseUrl: string;
  serverKey: string;
  timeoutMs: number;
}): PaymentGateway {
  const auth = `Basic ${Buffer.from(`${opts.serverKey}:`).toString('base64')}`;
  return {
    id: 'midtrans',
    notificationPath: '/v1/topup/midtrans/notification',

    async charge(order): Promise<QrisCharge> {
      let res: Response;
      try {
        res = await fetch(`${opts.baseUrl}/v2/charge`, {
          method: 'POST',
          headers: {
            accept: 'application/json',
            'content-type': 'application/json',
            authorization: auth,
            'x-override-notification': order.notificationUrl,
          },
          body: JSON.stringify({
            payment_type: 'qris',
            transaction_details: { order_id: order.orderId, gross_amount: order.amountIdr },
            item_details: [
              { id: 'kasir-topup', price: order.amountIdr, quantity: 1, name: 'kasir prepaid top-up' },
            ],
            custom_expiry: { expiry_duration: order.expiryMinutes, unit: 'minute' },
            qris: { acquirer: 'gopay' },
          }),
          signal: AbortSignal.timeout(opts.timeoutMs),
        });
      } catch (err) {
        throw new GatewayError(`Midtrans unreachable: ${(err as Error).message}`);
      }
      const text = await res.text();
      let parsed: z.infer<typeof ChargeResponse>;
      try {
        parsed = ChargeResponse.parse(JSON.parse(text));
      } catch {
        throw new GatewayError(`Midtrans answered ${res.status} with an unreadable body`);
      }
      // Midtrans reports the outcome in the body's status_code (201 = created), whatever the HTTP status.
      if (parsed.status_code !== '201' || !parsed.qr_string || !parsed.transaction_id) {
        throw new GatewayError(
          `Midtrans refused the charge: ${parsed.status_code} ${parsed.status_message ?? ''}`.trim(),
          { status: res.status, statusCode: parsed.status_code },
        );
      }
      return { qrString: parsed.qr_string, gatewayRef: parsed.transaction_id };
    },

    verifyNotification(body: unknown): NoticeCheck {
      const parsed = Notification.safeParse(body);
      if (!parsed.success) return { ok: false, reason: 'not a Midtrans notification' };
      const n = parsed.data;
      const expected = Buffer.from(
        midtransSignature(n.order_id, n.status_code, n.gross_amount, opts.serverKey),
        'hex',
      );
      const given = /^[0-9a-f]{128}$/i.test(n.signature_key) ? Buffer.from(n.signature_key, 'hex') : null;
      if (!given || !timingSafeEqual(given, expected)) return { ok: false, reason: 'bad signature_key' };
      const amountIdr = wholeRupiah(n.gross_amount);
      if (amountIdr === null) return { ok: false, reason: 'gross_amount is not whole rupiah' };
      const s = n.transaction_status;
      const paid =
        (s === 'settlement' && n.status_code === '200') ||
        (s === 'capture' && n.status_code === '200' && n.fraud_status === 'accept');
      return {
        ok: true,
        notice: {
          orderId: n.order_id,
          outcome: paid ? 'paid' : CLOSED.has(s) ? 'closed' : 'pending',
          amountIdr,
          gatewayRef: n.transaction_id ?? null,
          status: s,
        },
      };
    },
  };
}
