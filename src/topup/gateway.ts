/**
 * The payment-gateway port of rupiah top-ups: create a QRIS charge, and verify the gateway's payment notification.
 * Midtrans is the first adapter (midtrans.ts); another (Xendit, say) implements the same two calls.
 */

export interface QrisCharge {
  /** The QRIS payload to render as a QR code. */
  qrString: string;
  /** The gateway's own id of the transaction. */
  gatewayRef: string;
}

/** What a verified notification says about one order. */
export interface PaymentNotice {
  orderId: string;
  /** paid: the money arrived; closed: the transaction ended unpaid (expired, cancelled, denied, failed); pending. */
  outcome: 'paid' | 'closed' | 'pending';
  /** The amount the gateway reports, in whole rupiah. */
  amountIdr: number;
  gatewayRef: string | null;
  /** The gateway's own status word, for the log. */
  status: string;
}

export type NoticeCheck = { ok: true; notice: PaymentNotice } | { ok: false; reason: string };

export interface PaymentGateway {
  readonly id: string;
  /** Path of this gateway's notification endpoint on kasir. */
  readonly notificationPath: string;
  charge(order: {
    orderId: string;
    amountIdr: number;
    expiryMinutes: number;
    notificationUrl: string;
  }): Promise<QrisCharge>;
  /** Checks a notification body's signature and shape; a refusal names why. */
  verifyNotification(body: unknown): NoticeCheck;
}

/** The gateway could not create the charge (network, refusal): nothing was ordered from the visitor. */
export class GatewayError extends Error {
  constructor(
    message: string,
    readonly detail?: unknown,
  ) {
    super(message);
    this.name = 'GatewayError';
  }
}
