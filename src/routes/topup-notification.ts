/**
 * The payment gateway's notification endpoint (POST /v1/topup/midtrans/notification): verifies the signature,
 * applies the notice to its order once, and logs every outcome. A forged notice is refused with 403; a genuine one
 * about an order that cannot be paid (unknown, expired, already paid, wrong amount) credits nothing and is answered
 * 200, so the gateway stops retrying it.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { describeNotification } from '../dashboard/openapi-paths.js';
import type { Deps } from '../deps.js';
import { tooLarge } from '../http/body.js';
import { BODY_LIMITS } from '../http/body-limits.js';
import type { AppEnv } from '../http/env.js';
import { ApiError } from '../http/errors.js';
import type { PaymentGateway } from '../topup/gateway.js';
import { settleNotice } from '../topup/orders.js';

export function mountTopupNotification(app: OpenAPIHono<AppEnv>, deps: Deps, gateway: PaymentGateway): void {
  describeNotification(app, gateway.notificationPath, gateway.id);
  app.use(
    gateway.notificationPath,
    bodyLimit({
      maxSize: BODY_LIMITS.admin,
      onError: () => {
        throw tooLarge(BODY_LIMITS.admin);
      },
    }),
  );
  app.post(gateway.notificationPath, async (c) => {
    const text = await c.req.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new ApiError('invalid_json', 'the notification is not JSON');
    }
    const check = gateway.verifyNotification(body);
    if (!check.ok) {
      deps.log.warn({ gateway: gateway.id, reason: check.reason }, 'top-up notification refused');
      throw new ApiError('forbidden', `notification refused: ${check.reason}`);
    }
    const { notice } = check;
    const outcome = await settleNotice(deps.db, notice);
    const line = {
      gateway: gateway.id,
      orderId: notice.orderId,
      status: notice.status,
      amountIdr: notice.amountIdr,
      outcome,
    };
    if (outcome === 'credited') deps.log.info(line, 'top-up credited');
    else if (outcome === 'closed' || outcome === 'pending') deps.log.info(line, 'top-up notification');
    else deps.log.warn(line, 'top-up notification credited nothing');
    return c.json({ order_id: notice.orderId, outcome }, 200);
  });
}
