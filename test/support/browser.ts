// Where Debian's Chromium is, for the tests that drive it with playwright-core, the describe that runs them, and the
// browser they launch.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { describe } from 'vitest';

function chromiumPath(): string | undefined {
  if (existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  try {
    return execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

export const executablePath = chromiumPath();
/** In CI the browser is installed by .ci/run: a missing browser there fails the run instead of skipping. */
export const describeWithBrowser = executablePath || process.env.CI === 'true' ? describe : describe.skip;

/** Debian's Chromium, unmodified and headless, as every browser test runs it (no sandbox or GPU in a container). */
export function launchChromium(): Promise<Browser> {
  if (!executablePath) throw new Error('chromium is not installed (apt-get install -y chromium)');
  return chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
}
