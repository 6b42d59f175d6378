#!/usr/bin/env node
// The kasir operator CLI. Runs the compiled code; from a checkout, builds it first when it is missing or stale.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/cli.js', import.meta.url);
const build = fileURLToPath(new URL('../scripts/build.mjs', import.meta.url));
if (existsSync(build)) {
  // Its output goes to stderr: stdout is the command's (`kasir devnet` prints one JSON line there).
  const built = spawnSync(process.execPath, [build, '--if-stale'], { stdio: ['ignore', 2, 2] });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
if (!existsSync(entry)) {
  console.error('kasir: dist/ is missing; run `npm run build`');
  process.exit(1);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
