/**
 * A local Midtrans Core API for tests, speaking its wire format: POST /v2/charge with Basic auth of the server key
 * and payment_type "qris" answers status_code "201" with a dynamic QRIS qr_string (valid CRC) and a transaction id;
 * a wrong key answers 401, a reused order_id 406 (both with Midtrans's status_code in the body). The test plays the
 * payer: `pay(orderId)` sends the signed HTTP notification (signature_key = SHA-512 of order_id + status_code +
 * gross_amount + server key) to the URL the charge named in X-Override-Notification.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { crc16 } from '../../src/lookups/qris.js';
import { listen } from './http.js';

export interface FakeCharge {
  orderId: string;
  grossAmount: number;
  transactionId: string;
  notificationUrl: string | undefined;
  body: Record<string, unknown>;
  qrString: string;
}

export interface FakeMidtrans {
  url: string;
  serverKey: string;
  charges: Map<string, FakeCharge>;
  /** The next charge fails like Midtrans does: HTTP status and body status_code. */
  failNext(status: number, statusCode: string, message: string): void;
  /** A notification body for an order, signed with `signWith` (default: the right server key). */
  notification(
    orderId: string,
    status?: 'settlement' | 'expire' | 'pending' | 'cancel',
    overrides?: { grossAmount?: string; signWith?: string },
  ): Record<string, unknown>;
  /** Sends a notification to the charge's X-Override-Notification URL; returns kasir's answer. */
  send(body: Record<string, unknown>, to?: string): Promise<{ status: number; body: unknown }>;
  /** The payer pays: a signed settlement notification is sent. */
  pay(orderId: string): Promise<{ status: number; body: unknown }>;
  close(): Promise<void>;
}

const tlv = (id: string, value: string) => `${id}${String(value.length).padStart(2, '0')}${value}`;

/** A dynamic QRIS payload (point of initiation 12) with the amount and a valid CRC. */
function qrisPayload(amount: number, ref: string): string {
  const body = [
    tlv('00', '01'),
    tlv('01', '12'),
    tlv('26', tlv('00', 'COM.GO-JEK.WWW') + tlv('01', '936009140000000000') + tlv('02', 'G000000001')),
    tlv('51', tlv('00', 'ID.CO.QRIS.WWW') + tlv('02', 'ID1020000000001') + tlv('03', 'UMI')),
    tlv('52', '5815'),
    tlv('53', '360'),
    tlv('54', String(amount)),
    tlv('58', 'ID'),
    tlv('59', 'KASIR TEST'),
    tlv('60', 'JAKARTA'),
    tlv('62', tlv('05', ref.slice(0, 25))),
  ].join('');
  const withCrcTag = `${body}6304`;
  return withCrcTag + crc16(withCrcTag);
}

const stamp = (d = new Date()) => {
  // Midtrans writes times in Jakarta time (UTC+7) as "YYYY-MM-DD HH:mm:ss".
  const j = new Date(d.getTime() + 7 * 3_600_000).toISOString();
  return `${j.slice(0, 10)} ${j.slice(11, 19)}`;
};

export async function startFakeMidtrans(
  serverKey = 'SB-Mid-server-fake-key-0123456789',
): Promise<FakeMidtrans> {
  const charges = new Map<string, FakeCharge>();
  let failure: { status: number; statusCode: string; message: string } | null = null;
  const expectedAuth = `Basic ${Buffer.from(`${serverKey}:`).toString('base64')}`;

  const reply = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== 'POST' || req.url !== '/v2/charge')
      return reply(res, 404, { status_code: '404', status_message: 'The requested resource is not found' });
    if (req.headers.authorization !== expectedAuth)
      return reply(res, 401, {
        status_code: '401',
        status_message: 'Unknown Merchant server_key/id',
        id: randomUUID(),
      });
    if (failure) {
      const f = failure;
      failure = null;
      return reply(res, f.status, { status_code: f.statusCode, status_message: f.message, id: randomUUID() });
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    const details = body.transaction_details as { order_id?: string; gross_amount?: number } | undefined;
    if (body.payment_type !== 'qris' || !details?.order_id || !Number.isInteger(details.gross_amount))
      return reply(res, 400, {
        status_code: '400',
        status_message: 'One or more parameters in the payload is invalid.',
        validation_messages: ['transaction_details.gross_amount is required'],
      });
    if (charges.has(details.order_id))
      return reply(res, 406, {
        status_code: '406',
        status_message:
          'The request could not be completed due to a conflict with the current state of the target resource, please try again',
      });
    const transactionId = randomUUID();
    const grossAmount = details.gross_amount as number;
    const charge: FakeCharge = {
      orderId: details.order_id,
      grossAmount,
      transactionId,
      notificationUrl: req.headers['x-override-notification'] as string | undefined,
      body,
      qrString: qrisPayload(grossAmount, details.order_id),
    };
    charges.set(charge.orderId, charge);
    const now = new Date();
    return reply(res, 200, {
      status_code: '201',
      status_message: 'QRIS transaction is created',
      transaction_id: transactionId,
      order_id: charge.orderId,
      merchant_id: 'G000000001',
      gross_amount: `${grossAmount}.00`,
      currency: 'IDR',
      payment_type: 'qris',
      transaction_time: stamp(now),
      transaction_status: 'pending',
      fraud_status: 'accept',
      actions: [
        {
          name: 'generate-qr-code',
          method: 'GET',
          url: `http://fake-midtrans/v2/qris/${transactionId}/qr-code`,
        },
      ],
      qr_string: charge.qrString,
      acquirer: 'gopay',
      expiry_time: stamp(new Date(now.getTime() + 15 * 60_000)),
    });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => reply(res, 500, { status_code: '500', status_message: String(err) }));
  });
  const url = await listen(server);

  const STATUS_CODES = { settlement: '200', pending: '201', expire: '407', cancel: '200' } as const;

  const fake: FakeMidtrans = {
    url,
    serverKey,
    charges,
    failNext(status, statusCode, message) {
      failure = { status, statusCode, message };
    },
    notification(orderId, status = 'settlement', overrides = {}) {
      const charge = charges.get(orderId);
      const gross = overrides.grossAmount ?? `${charge?.grossAmount ?? 0}.00`;
      const statusCode = STATUS_CODES[status];
      const signature = createHash('sha512')
        .update(orderId + statusCode + gross + (overrides.signWith ?? serverKey))
        .digest('hex');
      return {
        transaction_type: 'on-us',
        transaction_time: stamp(),
        transaction_status: status,
        transaction_id: charge?.transactionId ?? randomUUID(),
        status_message: 'midtrans payment notification',
        status_code: statusCode,
        signature_key: signature,
        ...(status === 'settlement' ? { settlement_time: stamp() } : {}),
        payment_type: 'qris',
        order_id: orderId,
        merchant_id: 'G000000001',
        issuer: 'gopay',
        gross_amount: gross,
        fraud_status: 'accept',
        currency: 'IDR',
        acquirer: 'gopay',
      };
    },
    async send(body, to) {
      const target = to ?? charges.get(String(body.order_id))?.notificationUrl;
      if (!target) throw new Error(`no notification URL for ${String(body.order_id)}`);
      const res = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'Veritrans' },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {}
      return { status: res.status, body: parsed };
    },
    pay(orderId) {
      return fake.send(fake.notification(orderId, 'settlement'));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return fake;
}
