/**
 * tools/screenshot: a PNG of a web page in the system's headless Chromium, width×height exactly (or the whole page
 * with fullPage, up to SCREENSHOT_MAX_HEIGHT), every request the page makes checked by the private-address rule.
 */
import { existsSync } from 'node:fs';
import { checkDestination } from '../fetch/address-rule.js';
import { ApiError, invalidInput } from '../http/errors.js';
import { UpstreamError } from '../http/upstream-error.js';
import { saveBuffer } from '../media/service.js';
import { ScreenshotBrowser } from '../screenshot/browser.js';
import type { ToolFactory } from './types.js';

/** The size a PNG's IHDR chunk states. */
function pngSize(png: Buffer): { width: number; height: number } {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

export const screenshot: ToolFactory = (deps) => {
  const settings = deps.config.screenshot;
  if (!existsSync(settings.chromiumPath))
    return { missing: `CHROMIUM_PATH (no Chromium at ${settings.chromiumPath}: apt-get install chromium)` };
  const policy = { allowedHosts: deps.config.fetch.allowedHosts, extraCa: deps.config.fetch.extraCa };
  const browser = new ScreenshotBrowser(settings, policy);
  return {
    async run(input, call) {
      const url = new URL(String(input.url));
      const port = Number(url.port || 443);
      const verdict = await checkDestination(url.hostname, port, policy);
      if (!verdict.allowed) throw invalidInput([{ field: 'url', message: verdict.reason }]);
      const fullPage = input.fullPage === true;
      let result: Awaited<ReturnType<ScreenshotBrowser['capture']>>;
      try {
        result = await browser.capture({
          url: url.href,
          width: Number(input.width ?? 1280),
          height: Number(input.height ?? 800),
          fullPage,
          signal: call.signal,
        });
      } catch (err) {
        if (call.signal.aborted) throw err;
        deps.log.error({ err, reqId: call.requestId }, 'screenshot browser failed');
        throw new ApiError('unavailable', 'the screenshot browser is not available; nothing was charged');
      }
      if (!result.ok)
        throw new UpstreamError(
          result.kind === 'timeout' ? 'timeout' : 'upstream',
          `the page: ${result.message}`,
        );
      if (result.png.length > settings.maxBytes)
        throw new UpstreamError('upstream', `the capture is larger than ${settings.maxBytes} bytes`);
      const saved = await saveBuffer(deps.media, 'image/png', result.png);
      return {
        url: saved.url,
        contentType: 'image/png',
        ...pngSize(result.png),
        sizeBytes: saved.sizeBytes,
        fullPage,
        truncated: result.truncated,
        pageUrl: result.finalUrl,
      };
    },
  };
};
