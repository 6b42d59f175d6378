/**
 * Top-up pages: pick a rupiah amount, get the QRIS code, watch the order until it is paid; a visitor's paid order
 * then hands its new key to the browser that created it, once, and signs that browser in. Only that browser (it
 * holds the order's claim secret in a cookie) or the account being topped up can see an order.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { Deps } from '../deps.js';
import type { AppEnv } from '../http/env.js';
import { ApiError } from '../http/errors.js';
import { GatewayError, type PaymentGateway } from '../topup/gateway.js';
import {
  claimKey,
  createOrder,
  getOrder,
  holdsClaim,
  listOrders,
  recordCharge,
  statusOf,
  type TopupOrder,
} from '../topup/orders.js';
import { formatIdr } from '../topup/rupiah.js';
import { cookiePolicy, readForm, type Visit, visit } from './context.js';
import { startSession } from './session.js';
import { OrderPage, TopupPage } from './views/topup.js';

const CLAIM_COOKIE = 'kasir_topup';

export function mountTopupPages(app: OpenAPIHono<AppEnv>, deps: Deps, gateway: PaymentGateway | null): void {
  const { db } = deps;
  const cfg = deps.config.dashboard.topup;
  const policy = cookiePolicy(deps);
  const limits = {
    enabled: gateway !== null,
    minIdr: cfg.minIdr,
    maxIdr: cfg.maxIdr,
    idrPerUsd: cfg.idrPerUsd,
  };
  const accountOf = (v: Visit) => (v.viewer && 'accountId' in v.viewer ? v.viewer.accountId : null);

  const topupPage = async (c: Context<AppEnv>, v: Visit, error?: string, status: 200 | 400 | 502 = 200) => {
    const accountId = accountOf(v);
    const history = accountId ? await listOrders(db, accountId) : [];
    return c.html(<TopupPage page={v.page} limits={limits} history={history} error={error} />, status);
  };

  app.get('/dashboard/topup', async (c) => topupPage(c, await visit(c, deps)));

  app.post('/dashboard/topup', async (c) => {
    const v = await visit(c, deps);
    const form = await readForm(c, v.session);
    if (!gateway) throw new ApiError('not_configured', 'top-ups are not enabled on this server');
    const raw = (form.amount_idr ?? '').replaceAll('.', '');
    const amountIdr = /^\d{1,12}$/.test(raw) ? Number(raw) : Number.NaN;
    if (!(amountIdr >= cfg.minIdr && amountIdr <= cfg.maxIdr)) {
      const t = v.page.t;
      return topupPage(
        c,
        v,
        `${t.amountOut} ${formatIdr(cfg.minIdr)} ${t.and} ${formatIdr(cfg.maxIdr)}.`,
        400,
      );
    }
    const { order, claimSecret } = await createOrder(db, {
      gateway: gateway.id,
      amountIdr,
      idrPerUsd: cfg.idrPerUsd,
      expiryMinutes: cfg.expiryMinutes,
      accountId: accountOf(v),
    });
    try {
      const charge = await gateway.charge({
        orderId: order.id,
        amountIdr,
        expiryMinutes: cfg.expiryMinutes,
        notificationUrl: `${deps.config.publicBaseUrl}${gateway.notificationPath}`,
      });
      await recordCharge(db, order.id, charge);
    } catch (err) {
      await recordCharge(db, order.id, null);
      if (!(err instanceof GatewayError)) throw err;
      deps.log.warn({ orderId: order.id, err: err.message }, 'top-up charge failed');
      return topupPage(c, v, v.page.t.gatewayDown, 502);
    }
    if (claimSecret) {
      setCookie(c, CLAIM_COOKIE, `${order.id}.${claimSecret}`, {
        path: '/dashboard',
        httpOnly: true,
        sameSite: 'Strict',
        secure: policy.secure,
        maxAge: cfg.expiryMinutes * 60 + 86_400,
      });
    }
    return c.redirect(`/dashboard/topup/${order.id}`, 303);
  });

  /** The order, when this browser may see it: it holds the order's claim secret, or is signed in to its account. */
  const visibleOrder = async (c: Context<AppEnv>, v: Visit): Promise<TopupOrder> => {
    const order = await getOrder(db, c.req.param('id') ?? '');
    const [claimedId, secret] = (getCookie(c, CLAIM_COOKIE) ?? '').split('.', 2);
    const mine =
      order &&
      ((claimedId === order.id && holdsClaim(order, secret)) ||
        (!order.new_account && accountOf(v) === order.account_id));
    if (!order || !mine) throw new ApiError('not_found', 'no such order');
    return order;
  };

  const orderPage = (c: Context<AppEnv>, v: Visit, order: TopupOrder, newKey?: string) => {
    const status = statusOf(order);
    const claimable =
      status === 'paid' && order.new_account === 1 && !order.key_id && holdsClaim(order, claimSecretOf(c));
    return c.html(
      <OrderPage page={v.page} order={order} status={status} claimable={claimable} newKey={newKey} />,
    );
  };
  const claimSecretOf = (c: Context<AppEnv>) => (getCookie(c, CLAIM_COOKIE) ?? '').split('.', 2)[1];

  app.get('/dashboard/topup/:id', async (c) => {
    const v = await visit(c, deps);
    return orderPage(c, v, await visibleOrder(c, v));
  });

  app.get('/dashboard/topup/:id/status', async (c) => {
    const v = await visit(c, deps);
    const order = await visibleOrder(c, v);
    return c.json({ order_id: order.id, status: statusOf(order) });
  });

  app.get('/dashboard/topup/:id/qr.svg', async (c) => {
    const v = await visit(c, deps);
    const order = await visibleOrder(c, v);
    if (!order.qr_string) throw new ApiError('not_found', 'this order has no QR code');
    // qrcode loads with the first QR shown (top-ups are off on most instances).
    const { default: QRCode } = await import('qrcode');
    const svg = await QRCode.toString(order.qr_string, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });
    return c.body(svg, 200, { 'content-type': 'image/svg+xml', 'cache-control': 'private, max-age=600' });
  });

  app.post('/dashboard/topup/:id/claim', async (c) => {
    const v = await visit(c, deps);
    const order = await visibleOrder(c, v);
    await readForm(c, v.session);
    if (!holdsClaim(order, claimSecretOf(c))) throw new ApiError('not_found', 'no such order');
    const issued = await claimKey(db, order.id);
    if (!issued) return orderPage(c, v, (await getOrder(db, order.id)) ?? order);
    // The key is the login: this browser is now signed in to the new account.
    const session = await startSession(c, db, policy, { accountId: issued.account_id });
    const after = (await getOrder(db, order.id)) ?? order;
    return orderPage(c, await visit(c, deps, session), after, issued.key);
  });
}
