// The chat lane's CORS in a real browser: the lane sends CORS headers only to a request with an Origin, so a page on
// another site must still be able to pay a chat call with a key and read what it was charged (after the browser's own
// preflight), and read the 402 it gets without one. Chromium, unmodified, decides what the page may read.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server.js';
import { describeWithBrowser, launchChromium } from '../support/browser.js';
import { chatBody, type PaidKasir, startPaidKasir } from '../support/paid.js';

const MODEL = 'openai/gpt-4.1-mini';

describeWithBrowser('a browser agent on another site calling the chat lane', () => {
  let kasir: PaidKasir;
  let server: RunningServer;
  let agentSite: Server;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    kasir = await startPaidKasir('sqlite');
    server = await startServer(kasir.app, '127.0.0.1', 0);
    agentSite = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>agent</title>');
    });
    await new Promise<void>((resolve) => agentSite.listen(0, '127.0.0.1', resolve));
    browser = await launchChromium();
    page = await browser.newPage();
    // Another site: "localhost" is a different site from "127.0.0.1", where kasir listens.
    await page.goto(`http://localhost:${(agentSite.address() as AddressInfo).port}/`);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop(1000);
    await kasir?.stop();
    await new Promise<void>((resolve) => (agentSite ? agentSite.close(() => resolve()) : resolve()));
  });

  /** The page's own fetch of the chat lane: what the browser lets its script see. */
  const callFromPage = (key: string | null) =>
    page.evaluate(
      async ({ url, body, key }) => {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (key) headers.authorization = `Bearer ${key}`;
        const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
        return {
          status: res.status,
          charged: res.headers.get('x-service-charged-micro-usd'),
          balance: res.headers.get('x-service-balance-micro-usd'),
          challenge: res.headers.get('www-authenticate'),
          body: (await res.json()) as Record<string, unknown>,
        };
      },
      { url: `${server.url}/v1/chat/completions`, body: chatBody(MODEL), key },
    );

  it('pays with a key and reads the charge headers and body; the balance falls by the quote', async () => {
    const { accountId, key } = await kasir.fundedKey(1_000_000);
    const quote = kasir.quote(chatBody(MODEL));
    const answer = await callFromPage(key);
    expect(answer.status).toBe(200);
    expect(answer.charged).toBe(String(quote));
    expect(answer.balance).toBe(String(1_000_000 - quote));
    expect(answer.body.costMicroUsd).toBe(quote);
    expect(await kasir.balance(accountId)).toEqual({ balance: 1_000_000 - quote, held: 0 });
  });

  it('reads the 402 of an unpaid call: its status, challenge and body', async () => {
    const answer = await callFromPage(null);
    expect(answer.status).toBe(402);
    expect(answer.challenge).toMatch(/^Bearer realm="kasir"/);
    expect(answer.body).toMatchObject({ error: expect.anything() });
  });
});
