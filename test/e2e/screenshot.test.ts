// tools/screenshot in the system's Chromium against a local HTTPS site: exact sizes, fullPage, and a page that
// tries to reach private addresses (directly, through a redirect, by fetch) — each refused, proven by a trap
// server that must see no connection and by the page's own probes, drawn into the screenshot.
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer as createTcpServer, type Server } from 'node:net';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeScreenshotBrowsers } from '../../src/screenshot/browser.js';
import { type HttpsSite, startHttpsSite } from '../fakes/https-site.js';
import { DB_TARGETS } from '../support/app.js';
import { bearer, type PaidKasir, startPaidKasir } from '../support/paid.js';
import { decodePng, pngHeaderSize } from '../support/png.js';

const CHROMIUM = '/usr/bin/chromium';
// CI installs Chromium (.ci/run), so there the tests must run; elsewhere they are skipped without it.
const runs = existsSync(CHROMIUM) || process.env.CI === 'true';

function probePage(trapPort: number): string {
  const box = (id: string, src: string) =>
    `<div id="${id}" style="width:100px;height:100px;background:#777777"></div>` +
    `<img src="${src}" style="width:1px;height:1px" onload="mark('${id}','#ff0000')" onerror="mark('${id}','#00ff00')">`;
  return `<!doctype html><html><head><script>
function mark(id, colour) { document.getElementById(id).style.background = colour; }
fetch('https://127.0.0.1:${trapPort}/by-fetch').catch(() => {});
alert('dialogs are dismissed');
</script></head><body style="margin:0;background:#123456;display:flex;flex-wrap:wrap;align-content:flex-start">
${box('direct', `https://127.0.0.1:${trapPort}/direct.png`)}
${box('metadata', 'https://169.254.169.254/latest/meta-data/probe.png')}
${box('redirected', '/hop')}
${box('control', '/ok.png')}
</body></html>`;
}

function okPng(): Buffer {
  const png = new PNG({ width: 2, height: 2 });
  png.data.fill(255);
  return PNG.sync.write(png);
}

describe.runIf(runs).each(DB_TARGETS)('screenshot on %s', (db) => {
  let kasir: PaidKasir;
  let site: HttpsSite;
  let trap: Server;
  let trapPort = 0;
  let trapHits = 0;
  let closedPort = 0;
  let key: string;
  let accountId: string;

  beforeAll(async () => {
    trap = createTcpServer((socket) => {
      trapHits++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
    trapPort = (trap.address() as AddressInfo).port;
    const closed = createTcpServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    site = await startHttpsSite((req, res) => {
      if (req.url === '/probe') {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(probePage(trapPort));
      } else if (req.url === '/hop') {
        res.writeHead(302, { location: `https://127.0.0.1:${trapPort}/redirected.png` });
        res.end();
      } else if (req.url === '/ok.png') {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end(okPng());
      } else if (req.url === '/tall') {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(
          '<!doctype html><body style="margin:0"><div style="height:2400px;background:#204080"></div></body>',
        );
      } else {
        res.writeHead(404).end();
      }
    });
    kasir = await startPaidKasir(db, {
      FETCH_ALLOWED_HOSTS: `${site.hostPort},127.0.0.1:${closedPort}`,
      FETCH_CA_FILE: site.caFile,
      CHROMIUM_PATH: CHROMIUM,
      SCREENSHOT_TIMEOUT_MS: '8000',
    });
    ({ key, accountId } = await kasir.fundedKey(1_000_000));
  });
  afterAll(async () => {
    await closeScreenshotBrowsers();
    await kasir?.stop();
    await site?.close();
    await new Promise<void>((resolve) => (trap ? trap.close(() => resolve()) : resolve()));
  });

  const shoot = async (body: Record<string, unknown>) => {
    const before = await kasir.balance(accountId);
    const res = await kasir.app.request('/v1/tools/screenshot', {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', ...bearer(key) },
    });
    const json = (await res.json()) as Record<string, unknown> & { error?: { code: string; param?: string } };
    const after = await kasir.balance(accountId);
    return { res, json, charged: before.balance - after.balance };
  };
  const png = async (url: unknown) => {
    const res = await kasir.app.request(new URL(String(url)).pathname);
    expect(res.status).toBe(200);
    return Buffer.from(await res.arrayBuffer());
  };

  it('captures exactly width×height, blocks every private-address request the page makes, and charges the quote', async () => {
    const body = { url: `${site.url}/probe`, width: 640, height: 480 };
    const { res, json, charged } = await shoot(body);
    expect(res.status, JSON.stringify(json)).toBe(200);
    const quote = kasir.quote({ ...body, model: 'tools/screenshot' });
    expect(json.costMicroUsd).toBe(quote);
    expect(charged).toBe(quote);
    expect(res.headers.get('x-service-charged-micro-usd')).toBe(String(quote));
    expect(json).toMatchObject({
      tool: 'tools/screenshot',
      contentType: 'image/png',
      width: 640,
      height: 480,
    });
    const bytes = await png(json.url);
    expect(pngHeaderSize(bytes)).toEqual({ width: 640, height: 480 });
    const pixels = decodePng(bytes);
    // The page's probes: green where the request failed, red where it loaded. The three private ones failed;
    // the control image on the page's own (exempt) host loaded, so the page and its requests did run.
    expect(pixels.at(50, 50)).toBe('#00ff00');
    expect(pixels.at(150, 50)).toBe('#00ff00');
    expect(pixels.at(250, 50)).toBe('#00ff00');
    expect(pixels.at(350, 50)).toBe('#ff0000');
    expect(pixels.at(600, 400)).toBe('#123456');
    // Not one connection reached the private address: not the image, the redirect's target nor the fetch.
    expect(trapHits).toBe(0);
  });

  it('captures the whole page with fullPage', async () => {
    const { res, json } = await shoot({ url: `${site.url}/tall`, width: 400, height: 320, fullPage: true });
    expect(res.status, JSON.stringify(json)).toBe(200);
    expect(json).toMatchObject({ width: 400, height: 2400, fullPage: true, truncated: false });
    const bytes = await png(json.url);
    expect(pngHeaderSize(bytes)).toEqual({ width: 400, height: 2400 });
    expect(decodePng(bytes).at(200, 2300)).toBe('#204080');
  });

  it('refuses bad input and private pages with a 400 naming the field, charging nothing', async () => {
    const narrow = await shoot({ url: `${site.url}/tall`, width: 100 });
    expect(narrow.res.status).toBe(400);
    expect(narrow.json.error?.param).toBe('width');
    expect(narrow.charged).toBe(0);
    for (const url of [
      `https://127.0.0.1:${trapPort}/`,
      'https://169.254.169.254/latest/',
      'https://10.1.2.3/',
    ]) {
      const refused = await shoot({ url });
      expect(refused.res.status).toBe(400);
      expect(refused.json.error?.param).toBe('url');
      expect(refused.charged).toBe(0);
    }
    expect(trapHits).toBe(0);
  });

  it('answers 502 for a page that cannot be reached, charging nothing', async () => {
    const { res, json, charged } = await shoot({ url: `https://127.0.0.1:${closedPort}/` });
    expect(res.status, JSON.stringify(json)).toBe(502);
    expect(json.error?.code).toBe('upstream_error');
    expect(charged).toBe(0);
  });
});
