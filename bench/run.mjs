// Runs every benchmark in turn (each prints its own tables). `npm run bench` builds first.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { root } from './lib/harness.mjs';

for (const name of [
  'foundation',
  'lookups',
  'paid',
  'adversarial',
  'x402',
  'mpp',
  'mcp',
  'channels',
  'tools',
  'face',
  'face-verify',
  'workers',
]) {
  console.log(`\n=== bench/${name}.mjs`);
  const r = spawnSync(process.execPath, [path.join(root, 'bench', `${name}.mjs`)], {
    stdio: 'inherit',
    cwd: root,
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
