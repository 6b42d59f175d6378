/**
 * The screenshot browser: one headless Chromium (the system's, driven by playwright-core), started on the first
 * call and reused, closed after an idle spell; at most SCREENSHOT_MAX_PAGES pages at once, each in its own context
 * (no cookies shared between calls). Every request leaves through the guard proxy (guard-proxy.ts), which checks
 * each destination — redirects included, which Playwright's routing never sees — and every request Playwright
 * routes is checked again before it is sent. Downloads are refused, dialogs dismissed, service workers blocked.
 */
import { createHash, X509Certificate } from 'node:crypto';
import type { Browser, BrowserContext } from 'playwright-core';
import type { ScreenshotConfig } from '../config/screenshot.js';
import { type AddressPolicy, checkDestination } from '../fetch/address-rule.js';
import type { CallSignal } from '../http/call-signal.js';
import { type GuardProxy, startGuardProxy } from './guard-proxy.js';
import { Slots } from './slots.js';

export interface CaptureRequest {
  url: string;
  width: number;
  height: number;
  fullPage: boolean;
  signal: CallSignal;
}

export type CaptureResult =
  | { ok: true; png: Buffer; finalUrl: string; truncated: boolean }
  | { ok: false; kind: 'timeout' | 'navigation'; message: string };

/** base64 SHA-256 of each certificate's public key, as Chromium's --ignore-certificate-errors-spki-list takes. */
function spkiHashes(pems: readonly string[]): string[] {
  return pems.map((pem) => {
    const der = new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });
    return createHash('sha256').update(der).digest('base64');
  });
}

const live = new Set<ScreenshotBrowser>();

/** Closes every screenshot browser of this process (shutdown, and tests). */
export async function closeScreenshotBrowsers(): Promise<void> {
  await Promise.all([...live].map((b) => b.close()));
}

export class ScreenshotBrowser {
  private running: Promise<{ browser: Browser; proxy: GuardProxy }> | undefined;
  private readonly slots: Slots;
  private busy = 0;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly config: ScreenshotConfig,
    private readonly policy: AddressPolicy & { extraCa?: readonly string[] },
  ) {
    this.slots = new Slots(config.maxPages);
  }

  async capture(req: CaptureRequest): Promise<CaptureResult> {
    const release = await this.slots.acquire(req.signal);
    this.busy++;
    clearTimeout(this.idleTimer);
    let context: BrowserContext | undefined;
    const onAbort = () => void context?.close().catch(() => {});
    req.signal.addEventListener('abort', onAbort);
    try {
      const { browser } = await this.start();
      context = await browser.newContext({
        viewport: { width: req.width, height: req.height },
        deviceScaleFactor: 1,
        acceptDownloads: false,
        javaScriptEnabled: true,
        serviceWorkers: 'block',
      });
      await context.route('**/*', async (route) => {
        const url = new URL(route.request().url());
        if (url.protocol !== 'http:' && url.protocol !== 'https:') return route.abort('blockedbyclient');
        const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
        const verdict = await checkDestination(url.hostname, port, this.policy);
        return verdict.allowed ? route.continue() : route.abort('blockedbyclient');
      });
      const page = await context.newPage();
      page.on('dialog', (d) => void d.dismiss().catch(() => {}));
      page.on('download', (d) => void d.cancel().catch(() => {}));
      try {
        await page.goto(req.url, { timeout: this.config.timeoutMs, waitUntil: 'load' });
      } catch (err) {
        const message = (err as Error).message.split('\n', 1)[0] ?? 'navigation failed';
        return {
          ok: false,
          kind: (err as Error).name === 'TimeoutError' ? 'timeout' : 'navigation',
          message,
        };
      }
      let truncated = false;
      let clip: { x: number; y: number; width: number; height: number } | undefined;
      if (req.fullPage) {
        // Evaluated in the page (a string, as kasir's TypeScript has no DOM types).
        const tall = Number(
          await page.evaluate(
            'Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0)',
          ),
        );
        if (tall > this.config.maxHeight) {
          truncated = true;
          clip = { x: 0, y: 0, width: req.width, height: this.config.maxHeight };
        }
      }
      const png = await page.screenshot({
        type: 'png',
        fullPage: req.fullPage,
        clip,
        timeout: this.config.timeoutMs,
        animations: 'disabled',
      });
      return { ok: true, png, finalUrl: page.url(), truncated };
    } finally {
      req.signal.removeEventListener('abort', onAbort);
      await context?.close().catch(() => {});
      this.busy--;
      release();
      this.scheduleIdleClose();
    }
  }

  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    const running = this.running;
    this.running = undefined;
    live.delete(this);
    if (!running) return;
    const { browser, proxy } = await running.catch(() => ({ browser: undefined, proxy: undefined }));
    await browser?.close().catch(() => {});
    await proxy?.close().catch(() => {});
  }

  private start(): Promise<{ browser: Browser; proxy: GuardProxy }> {
    if (this.running) return this.running;
    const starting = (async () => {
      const proxy = await startGuardProxy(this.policy);
      try {
        const spki = spkiHashes(this.policy.extraCa ?? []);
        // The browser driver loads with the first screenshot, not at start: most instances take none.
        const { chromium } = await import('playwright-core');
        const browser = await chromium.launch({
          executablePath: this.config.chromiumPath,
          headless: true,
          timeout: 30_000,
          args: [
            `--proxy-server=${proxy.url}`,
            // Loopback is proxied too (Chromium bypasses the proxy for it by default).
            '--proxy-bypass-list=<-loopback>',
            '--disable-gpu',
            '--disable-quic',
            '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
            '--disable-dev-shm-usage',
            ...(spki.length ? [`--ignore-certificate-errors-spki-list=${spki.join(',')}`] : []),
          ],
        });
        browser.on('disconnected', () => {
          if (this.running === starting) this.running = undefined;
          void proxy.close().catch(() => {});
        });
        return { browser, proxy };
      } catch (err) {
        await proxy.close();
        throw err;
      }
    })();
    this.running = starting;
    live.add(this);
    starting.catch(() => {
      if (this.running === starting) this.running = undefined;
    });
    return starting;
  }

  private scheduleIdleClose(): void {
    if (this.busy > 0 || this.config.idleMs === 0) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.close(), this.config.idleMs);
    this.idleTimer.unref();
  }
}
