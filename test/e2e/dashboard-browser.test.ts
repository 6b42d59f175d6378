// The dashboard in a real browser: a QRIS top-up through key, usage, CSV and revocation; cross-origin forms;
// wallet sign-in; and no Content-Security-Policy violation.
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { nowIso } from '../../src/ledger/ids.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { type FakeMidtrans, startFakeMidtrans } from '../fakes/midtrans.js';
import { describeWithBrowser, launchChromium } from '../support/browser.js';
import { chatBody, type PaidKasir, startPaidKasir } from '../support/paid.js';

const MODEL = 'openai/gpt-4.1-mini';
const ARTIFACTS = path.resolve('test-artifacts/dashboard');
const VIEWPORTS = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } } as const;

const run = describeWithBrowser;

run('the dashboard in a real browser', () => {
  let kasir: PaidKasir;
  let server: RunningServer;
  let midtrans: FakeMidtrans;
  let browser: Browser;
  let page: Page;
  let evil: Server;
  const cspViolations: string[] = [];

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    midtrans = await startFakeMidtrans();
    kasir = await startPaidKasir('sqlite', {
      MIDTRANS_SERVER_KEY: midtrans.serverKey,
      MIDTRANS_BASE_URL: midtrans.url,
      TOPUP_IDR_PER_USD: '16000',
      PREPAID_LEASE_MICRO_USD: '0',
    });
    server = await startServer(kasir.app, '127.0.0.1', 0);
    browser = await launchChromium();
    const context = await browser.newContext({ acceptDownloads: true, viewport: VIEWPORTS.desktop });
    page = await context.newPage();
    page.on('console', (m) => {
      if (/Content[- ]Security[- ]Policy/i.test(m.text())) cspViolations.push(m.text());
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop(1000);
    await kasir?.stop();
    await midtrans?.close();
    await new Promise<void>((resolve) => (evil ? evil.close(() => resolve()) : resolve()));
  });

  /** Screenshots of the current page at desktop and phone widths. */
  const shoot = async (name: string) => {
    for (const [label, size] of Object.entries(VIEWPORTS)) {
      await page.setViewportSize(size);
      await page.screenshot({ path: path.join(ARTIFACTS, `${name}-${label}.png`), fullPage: true });
    }
    await page.setViewportSize(VIEWPORTS.desktop);
  };

  const chat = (key: string) =>
    fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(chatBody(MODEL)),
    });

  it('tops up by QRIS, hands over the key, and tracks a call through usage, CSV and revocation', async () => {
    await page.goto(`${server.url}/dashboard`);
    await shoot('sign-in');
    await page.goto(`${server.url}/dashboard/topup`);
    await shoot('topup');
    await page.fill('input[name=amount_idr]', '50000');
    await Promise.all([
      page.waitForURL(/\/dashboard\/topup\/topup-/),
      page.click('#topup button[type=submit]'),
    ]);

    // The QR image renders (an SVG made from the QRIS string the gateway returned).
    const qr = page.locator('img#qr');
    await qr.waitFor();
    await expect
      .poll(() => qr.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth))
      .toBeGreaterThan(0);
    await shoot('order-pending');
    const orderId = page.url().split('/').pop() ?? '';
    expect(midtrans.charges.get(orderId)?.grossAmount).toBe(50_000);

    // The gateway pays: its signed notification reaches kasir; the page notices by itself.
    const paid = await midtrans.send(
      midtrans.notification(orderId),
      `${server.url}/v1/topup/midtrans/notification`,
    );
    expect(paid).toMatchObject({ status: 200, body: { outcome: 'credited' } });
    await page.locator('#claim button').waitFor({ timeout: 10_000 });
    await page.click('#claim button');
    const key = (await page.locator('#new-key-value').textContent())?.trim() ?? '';
    expect(key).toMatch(/^ksr_/);
    await shoot('key-shown-once');

    await page.goto(`${server.url}/dashboard`);
    await expect.poll(() => page.locator('#balance').textContent()).toContain('3.125000');
    expect(await page.locator('#balance').textContent()).toContain('Rp 50.000');
    await shoot('overview');

    // A paid call with the new key shows up in the table and the charts.
    const call = await chat(key);
    expect(call.status).toBe(200);
    const charged = Number(call.headers.get('x-service-charged-micro-usd'));
    expect(charged).toBeGreaterThan(0);
    await page.goto(`${server.url}/dashboard/usage`);
    await expect(page.locator('#usage tbody tr').count()).resolves.toBe(1);
    expect(await page.locator('#usage tbody').textContent()).toContain(MODEL);
    await expect.poll(() => page.locator('#chart-day').getAttribute('data-drawn')).toBe('true');
    await expect.poll(() => page.locator('#chart-model').getAttribute('data-drawn')).toBe('true');
    await shoot('usage');

    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-csv')]);
    const csv = readFileSync((await download.path()) ?? '', 'utf8');
    expect(csv.split('\r\n')[0]).toBe('time,route,model,cost_usd,cost_micro_usd,status,http_status,rail');
    expect(csv).toContain(`,${MODEL},`);
    expect(csv).toContain(`,${charged},charged,200,prepaid`);

    // Keys: create a second one (shown once), then revoke the first; the first is refused at once.
    await page.goto(`${server.url}/dashboard/keys`);
    await page.fill('#create-key input[name=label]', 'laptop');
    await page.click('#create-key button[type=submit]');
    const second = (await page.locator('#new-key-value').textContent())?.trim() ?? '';
    expect(second).toMatch(/^ksr_/);
    expect(second).not.toBe(key);
    await shoot('keys');
    const firstId = (
      await kasir.deps.db.kysely
        .selectFrom('api_keys')
        .select('id')
        .where('label', '=', 'QRIS top-up')
        .executeTakeFirstOrThrow()
    ).id;
    await page.locator(`li[data-key-id="${firstId}"] button.danger`).click();
    await page.locator('.notice').waitFor();
    expect((await chat(key)).status).toBe(401);
    expect((await chat(second)).status).toBe(200);

    // Indonesian.
    await page.goto(`${server.url}/dashboard?lang=id`);
    expect(await page.locator('h1').textContent()).toBe('Ringkasan');
    await shoot('overview-id');
    await page.goto(`${server.url}/dashboard?lang=en`);
  }, 60_000);

  it('refuses a form posted to the dashboard from another origin', async () => {
    evil = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<form id="f" method="post" action="${server.url}/dashboard/keys"><input name="label" value="pwned"></form>` +
          '<script>document.getElementById("f").submit()</script>',
      );
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    // Another site: "localhost" is a different site from "127.0.0.1".
    const evilUrl = `http://localhost:${(evil.address() as AddressInfo).port}/`;
    const [response] = await Promise.all([
      page.waitForResponse(
        (r) => r.url() === `${server.url}/dashboard/keys` && r.request().method() === 'POST',
      ),
      page.goto(evilUrl),
    ]);
    expect(response.status()).toBe(403);
    const pwned = await kasir.deps.db.kysely
      .selectFrom('api_keys')
      .select('id')
      .where('label', '=', 'pwned')
      .execute();
    expect(pwned).toHaveLength(0);
  });

  it('signs a wallet in through the page: an EIP-1193 wallet signs the message the form then posts', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    await kasir.deps.db.kysely
      .insertInto('usage_records')
      .values({
        created_at: nowIso(),
        request_id: 'req-browser-wallet',
        rail: 'x402',
        account_id: null,
        key_id: null,
        payer: wallet.address.toLowerCase(),
        offer_id: 'paid-by-browser-wallet',
        quote_micro_usd: 2000,
        charged_micro_usd: 2000,
        status: 'charged',
        http_status: 200,
        latency_ms: 3,
        error_code: null,
        route: '/x402/paid-by-browser-wallet',
        network: 'eip155:8453',
        tx_id: '0xabc',
      })
      .execute();
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    // The wallet extension: window.ethereum (EIP-1193) answering from a viem local account outside the page.
    let signed = '';
    await context.exposeFunction('kasirTestWallet', async (method: string, params: unknown[]) => {
      if (method === 'eth_requestAccounts') return [wallet.address];
      if (method === 'eth_chainId') return '0x2105';
      if (method === 'personal_sign') {
        signed = params[0] as string;
        return wallet.signMessage({ message: signed });
      }
      throw new Error(`unsupported ${method}`);
    });
    await context.addInitScript({
      content:
        'window.ethereum = { request: ({ method, params }) => window.kasirTestWallet(method, params ?? []) };',
    });
    const walletPage = await context.newPage();
    walletPage.on('console', (m) => {
      if (/Content[- ]Security[- ]Policy/i.test(m.text())) cspViolations.push(m.text());
    });
    try {
      await walletPage.goto(`${server.url}/dashboard`);
      const posted = walletPage.waitForRequest(
        (r) => r.url() === `${server.url}/dashboard/siwe` && r.method() === 'POST',
      );
      await Promise.all([walletPage.waitForURL(/\/dashboard\/usage$/), walletPage.click('#siwe-button')]);
      // What the browser really posted: the message's line ends as CRLF, which kasir read as the LF the wallet signed.
      const form = new URLSearchParams((await posted).postData() ?? '');
      expect(form.get('message')).toContain('\r\n');
      expect(form.get('message')?.replace(/\r\n/g, '\n')).toBe(signed);
      expect(await walletPage.locator('#usage tbody').textContent()).toContain('paid-by-browser-wallet');

      // A refused sign-in is a page saying why, not raw JSON.
      const fresh = await (await browser.newContext()).newPage(); // signed out: no session cookie
      await fresh.goto(`${server.url}/dashboard`);
      await fresh.evaluate(`(() => {
        const form = document.getElementById('siwe-form');
        form.elements.message.value = 'not a sign-in message';
        form.elements.signature.value = '0x1234';
        form.submit();
      })()`);
      await fresh.waitForURL(/\/dashboard\/siwe$/);
      const refused = await fresh.locator('p.error').textContent();
      expect(refused).toContain('did not verify');
      expect(await fresh.locator('#login').count()).toBe(1);
    } finally {
      for (const open of browser.contexts()) if (open !== page.context()) await open.close();
    }
  }, 60_000);

  it('reported no Content-Security-Policy violation on any page', () => {
    expect(cspViolations).toEqual([]);
  });
});
