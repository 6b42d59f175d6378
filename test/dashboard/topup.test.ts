// Rupiah top-ups by QRIS against a fake Midtrans: the charge on the wire, amount limits, the QR image, signed
// notifications (forged, replayed, unknown, expired, wrong amount), the key handed over once, gateway failures.
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBalance } from '../../src/ledger/books.js';
import { ledgerTotals } from '../../src/ledger/history.js';
import { idrToMicroUsd, microUsdToIdr } from '../../src/topup/rupiah.js';
import { type FakeMidtrans, startFakeMidtrans } from '../fakes/midtrans.js';
import { DB_TARGETS, startKasir, type TestKasir } from '../support/app.js';
import { DashboardClient, shownKey } from '../support/dashboard-client.js';

const NOTIFY = '/v1/topup/midtrans/notification';

describe('rupiah arithmetic', () => {
  it('converts at the fixed rate in integers, rounding down', () => {
    expect(idrToMicroUsd(50_000, 16_000)).toBe(3_125_000);
    expect(idrToMicroUsd(10_000, 15_999)).toBe(625_039);
    expect(idrToMicroUsd(1_000_000_000, 1)).toBe(1_000_000_000_000_000);
    expect(microUsdToIdr(3_125_000, 16_000)).toBe(50_000);
    expect(microUsdToIdr(1, 16_000)).toBe(0);
  });
});

describe.each(DB_TARGETS)('QRIS top-up on %s', (target) => {
  let kasir: TestKasir;
  let midtrans: FakeMidtrans;
  const logged: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      logged.push(JSON.parse(String(chunk)));
      done();
    },
  });
  beforeAll(async () => {
    midtrans = await startFakeMidtrans();
    kasir = await startKasir(
      target,
      {
        RATE_LIMIT_PER_MINUTE: '0',
        MIDTRANS_SERVER_KEY: midtrans.serverKey,
        MIDTRANS_BASE_URL: midtrans.url,
        TOPUP_IDR_PER_USD: '16000',
        TOPUP_MIN_IDR: '10000',
        TOPUP_MAX_IDR: '2000000',
        TOPUP_EXPIRY_MINUTES: '15',
      },
      (deps) => {
        deps.log = pino({ level: 'info' }, sink);
      },
    );
  });
  afterAll(async () => {
    await kasir.close();
    await midtrans.close();
  });

  const notify = async (body: Record<string, unknown>) => {
    const res = await kasir.app.request(NOTIFY, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { outcome?: string } };
  };

  it('offers the Top up link when top-ups are on', async () => {
    expect((await new DashboardClient(kasir).get('/dashboard')).text).toContain('href="/dashboard/topup"');
  });

  /** A visitor starts a top-up; returns the browser and the order id. */
  const startTopup = async (amount: string, browser = new DashboardClient(kasir)) => {
    await browser.get('/dashboard/topup');
    const res = await browser.post('/dashboard/topup', { amount_idr: amount });
    expect(res.status).toBe(303);
    const orderId = /\/dashboard\/topup\/([\w-]+)$/.exec(res.headers.get('location') ?? '')?.[1] ?? '';
    expect(orderId).toMatch(/^topup-/);
    return { browser, orderId };
  };

  const order = (id: string) =>
    kasir.deps.db.kysely
      .selectFrom('topup_orders')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  it('charges Midtrans with its wire format and shows the QR of the QRIS string', async () => {
    const { browser, orderId } = await startTopup('50000');
    const charge = midtrans.charges.get(orderId);
    expect(charge?.body).toMatchObject({
      payment_type: 'qris',
      transaction_details: { order_id: orderId, gross_amount: 50_000 },
      custom_expiry: { expiry_duration: 15, unit: 'minute' },
    });
    expect(charge?.notificationUrl).toBe(`http://kasir.test${NOTIFY}`);
    const stored = await order(orderId);
    expect(stored).toMatchObject({
      amount_idr: 50_000,
      idr_per_usd: 16_000,
      amount_micro_usd: 3_125_000,
      status: 'pending',
      qr_string: charge?.qrString,
      gateway_ref: charge?.transactionId,
    });
    const page = await browser.get(`/dashboard/topup/${orderId}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`/dashboard/topup/${orderId}/qr.svg`);
    expect(page.text).toContain('Rp 50.000');
    expect(page.text).toContain('3.125000');
    const qr = await browser.get(`/dashboard/topup/${orderId}/qr.svg`);
    expect(qr.headers.get('content-type')).toBe('image/svg+xml');
    expect(qr.text).toMatch(/^<svg[^>]*viewBox/);
    expect(JSON.parse((await browser.get(`/dashboard/topup/${orderId}/status`)).text)).toMatchObject({
      status: 'pending',
    });
    // Another browser cannot see the order, its QR or its status.
    const stranger = new DashboardClient(kasir);
    for (const path of ['', '/qr.svg', '/status'])
      expect((await stranger.get(`/dashboard/topup/${orderId}${path}`)).status, path).toBe(404);
  });

  it('refuses amounts out of range before asking the gateway', async () => {
    const browser = new DashboardClient(kasir);
    await browser.get('/dashboard/topup');
    const before = midtrans.charges.size;
    for (const amount of ['9999', '2000001', '-5', '12.5', 'abc', '']) {
      const res = await browser.post('/dashboard/topup', { amount_idr: amount });
      expect(res.status, amount).toBe(400);
      expect(res.text).toContain('Rp 10.000');
    }
    expect(midtrans.charges.size).toBe(before);
  });

  it('credits a signed notification once, hands the key over once, and the key works', async () => {
    const { browser, orderId } = await startTopup('50000');
    const forged = midtrans.notification(orderId, 'settlement', { signWith: 'not-the-server-key' });
    expect((await notify(forged)).status).toBe(403);
    expect((await order(orderId)).status).toBe('pending');

    const first = await notify(midtrans.notification(orderId));
    expect(first).toEqual({ status: 200, body: { order_id: orderId, outcome: 'credited' } });
    const replay = await notify(midtrans.notification(orderId));
    expect(replay.body.outcome).toBe('already-paid');
    const o = await order(orderId);
    expect(o.status).toBe('paid');
    const balance = await getBalance(kasir.deps.db, o.account_id);
    expect(balance.balanceMicroUsd).toBe(3_125_000);
    expect(await ledgerTotals(kasir.deps.db, o.account_id)).toEqual({ balance: 3_125_000, held: 0 });

    const paidPage = await browser.get(`/dashboard/topup/${orderId}`);
    expect(paidPage.text).toContain('id="claim"');
    expect(shownKey(paidPage.text)).toBeUndefined();
    const claimed = await browser.post(`/dashboard/topup/${orderId}/claim`);
    const key = shownKey(claimed.text);
    expect(key).toBeDefined();
    expect(claimed.setCookies.some((c) => c.startsWith('kasir_session='))).toBe(true);
    const again = await browser.post(`/dashboard/topup/${orderId}/claim`);
    expect(shownKey(again.text)).toBeUndefined();
    const res = await kasir.app.request('/v1/keys/balance', { headers: { authorization: `Bearer ${key}` } });
    expect(await res.json()).toMatchObject({ account_id: o.account_id, balance_micro_usd: 3_125_000 });
    const overview = await browser.get('/dashboard');
    expect(overview.text).toContain('Rp 50.000');
  });

  it('credits nothing for an unknown, expired, cancelled or wrongly-priced order, and logs it', async () => {
    expect(
      (await notify(midtrans.notification('topup-nobody', 'settlement', { grossAmount: '50000.00' }))).body,
    ).toMatchObject({ outcome: 'unknown-order' });

    const wrong = await startTopup('20000');
    const cheap = midtrans.notification(wrong.orderId, 'settlement', { grossAmount: '10000.00' });
    expect((await notify(cheap)).body.outcome).toBe('amount-mismatch');
    expect((await order(wrong.orderId)).status).toBe('pending');

    const late = await startTopup('20000');
    await kasir.deps.db.kysely
      .updateTable('topup_orders')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', late.orderId)
      .execute();
    expect((await notify(midtrans.notification(late.orderId))).body.outcome).toBe('expired');
    const latePage = await late.browser.get(`/dashboard/topup/${late.orderId}`);
    expect(latePage.text).toContain('expired');
    expect(JSON.parse((await late.browser.get(`/dashboard/topup/${late.orderId}/status`)).text).status).toBe(
      'expired',
    );

    const gone = await startTopup('20000');
    expect((await notify(midtrans.notification(gone.orderId, 'expire'))).body.outcome).toBe('closed');
    expect((await order(gone.orderId)).status).toBe('expired');
    expect((await notify(midtrans.notification(gone.orderId))).body.outcome).toBe('not-pending');

    const refused = logged
      .filter((l) => l.msg === 'top-up notification credited nothing')
      .map((l) => l.outcome);
    expect(refused).toEqual(
      expect.arrayContaining(['unknown-order', 'amount-mismatch', 'expired', 'not-pending']),
    );
    expect(JSON.stringify(logged)).not.toContain(midtrans.serverKey);
    for (const id of [wrong.orderId, late.orderId, gone.orderId]) {
      const o = await order(id);
      const acct = await kasir.deps.db.kysely
        .selectFrom('accounts')
        .select('balance_micro_usd')
        .where('id', '=', o.account_id)
        .executeTakeFirst();
      expect(acct?.balance_micro_usd ?? 0, id).toBe(0);
    }
  });

  it('refuses a notification that is not JSON, not Midtrans-shaped, or too large, crediting nothing', async () => {
    const post = (body: string) =>
      kasir.app.request(NOTIFY, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect((await post('not json')).status).toBe(400);
    expect((await post('{"order_id":"x"}')).status).toBe(403);
    expect((await post(JSON.stringify({ pad: 'x'.repeat(100_000) }))).status).toBe(413);
  });

  it('applies two racing copies of one notification once', async () => {
    const { orderId } = await startTopup('100000');
    const body = midtrans.notification(orderId);
    const outcomes = (await Promise.all([notify(body), notify(body), notify(body)])).map(
      (r) => r.body.outcome,
    );
    expect(outcomes.filter((o) => o === 'credited')).toHaveLength(1);
    const o = await order(orderId);
    expect((await getBalance(kasir.deps.db, o.account_id)).balanceMicroUsd).toBe(6_250_000);
  });

  it("tops up the signed-in account's own balance and lists it in the history", async () => {
    const { browser, orderId } = await startTopup('16000');
    await notify(midtrans.notification(orderId));
    await browser.post(`/dashboard/topup/${orderId}/claim`);
    await browser.get('/dashboard');
    const accountId = (await order(orderId)).account_id;
    const second = await startTopup('32000', browser);
    expect((await order(second.orderId)).account_id).toBe(accountId);
    expect((await order(second.orderId)).new_account).toBe(0);
    await notify(midtrans.notification(second.orderId));
    expect((await getBalance(kasir.deps.db, accountId)).balanceMicroUsd).toBe(3_000_000);
    const history = await browser.get('/dashboard/topup');
    expect(history.text).toContain(second.orderId);
    expect(history.text).toContain('Rp 32.000');
  });

  it('answers 502 and records a failed order when Midtrans refuses the charge', async () => {
    midtrans.failNext(401, '401', 'Unknown Merchant server_key/id');
    const browser = new DashboardClient(kasir);
    await browser.get('/dashboard/topup');
    const res = await browser.post('/dashboard/topup', { amount_idr: '50000' });
    expect(res.status).toBe(502);
    const failed = await kasir.deps.db.kysely
      .selectFrom('topup_orders')
      .selectAll()
      .where('status', '=', 'failed')
      .execute();
    expect(failed.length).toBeGreaterThan(0);
  });
});

describe('top-ups switched off', () => {
  let kasir: TestKasir;
  beforeAll(async () => {
    kasir = await startKasir('sqlite', { RATE_LIMIT_PER_MINUTE: '0' });
  });
  afterAll(() => kasir.close());

  it('says so on the page, refuses the form with 503 and has no notification endpoint', async () => {
    const browser = new DashboardClient(kasir);
    await browser.get('/dashboard');
    expect((await browser.get('/dashboard/topup')).text).toContain('not enabled');
    expect((await browser.post('/dashboard/topup', { amount_idr: '50000' })).status).toBe(503);
    expect((await kasir.app.request(NOTIFY, { method: 'POST', body: '{}' })).status).toBe(404);
  });
});
