/** Settings of the screenshot tool: which Chromium, how many pages at once, how long and how large a capture may be. */
import { z } from 'zod';
import { int, type SettingsArea } from './setting.js';

export const screenshotEnvShape = {
  CHROMIUM_PATH: z.string().default('/usr/bin/chromium'),
  SCREENSHOT_MAX_PAGES: int(1, 32).default(2),
  SCREENSHOT_TIMEOUT_MS: int(1000).default(20_000),
  SCREENSHOT_MAX_BYTES: int(1024).default(20 * 1024 * 1024),
  SCREENSHOT_MAX_HEIGHT: int(320, 32_768).default(16_384),
  SCREENSHOT_IDLE_MS: int(0).default(120_000),
};

export interface ScreenshotConfig {
  /** The Chromium binary (Debian's `chromium` package by default). */
  chromiumPath: string;
  /** Pages open at once in the one browser; further calls wait their turn. */
  maxPages: number;
  /** Navigation (to the load event) and the capture, each within this. */
  timeoutMs: number;
  /** The largest PNG answered. */
  maxBytes: number;
  /** The tallest fullPage capture, in px. */
  maxHeight: number;
  /** The browser closes after this long without a call (0: it stays up). */
  idleMs: number;
}

export function parseScreenshot(e: Record<string, unknown>): ScreenshotConfig {
  return {
    chromiumPath: String(e.CHROMIUM_PATH),
    maxPages: Number(e.SCREENSHOT_MAX_PAGES),
    timeoutMs: Number(e.SCREENSHOT_TIMEOUT_MS),
    maxBytes: Number(e.SCREENSHOT_MAX_BYTES),
    maxHeight: Number(e.SCREENSHOT_MAX_HEIGHT),
    idleMs: Number(e.SCREENSHOT_IDLE_MS),
  };
}

export const screenshotSettings: SettingsArea = {
  name: 'screenshot',
  shape: screenshotEnvShape,
  rows: [
    {
      vars: ['CHROMIUM_PATH'],
      default: '`/usr/bin/chromium`',
      meaning:
        "The screenshot tool's browser (Debian's `chromium` package); without it `tools/screenshot` answers 503.",
    },
    {
      vars: ['SCREENSHOT_MAX_PAGES'],
      default: '`2`',
      meaning: 'Pages the one browser renders at once; further screenshot calls wait their turn.',
    },
    {
      vars: ['SCREENSHOT_TIMEOUT_MS'],
      default: '`20000`',
      meaning:
        'A page must reach its load event within this, and the capture finish within it again (504 past it).',
    },
    {
      vars: ['SCREENSHOT_MAX_BYTES'],
      default: '`20971520`',
      meaning: 'The largest screenshot PNG answered (a larger one is a 502, not charged).',
    },
    {
      vars: ['SCREENSHOT_MAX_HEIGHT'],
      default: '`16384`',
      meaning:
        'The tallest `fullPage` capture; a taller page is cut there and answered with `truncated: true`.',
    },
    {
      vars: ['SCREENSHOT_IDLE_MS'],
      default: '`120000`',
      meaning: 'The browser closes after this long without a screenshot call (`0`: it stays up).',
    },
  ],
};
