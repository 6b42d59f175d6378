// Where Debian's Chromium is, for the tests that drive it with playwright-core, and the describe that runs them.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
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
