#!/usr/bin/env node
// The kasir operator CLI. Runs the compiled code: `npm run build` first when working from a checkout.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(entry)) {
  console.error(
    'kasir: dist/ is missing; run `npm run build` (or `npm run kasir -- <command>`, which builds first)',
  );
  process.exit(1);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
