// Compiles src/ to dist/ and copies the JSON data files and the dashboard's static assets that ship with kasir.
// `--if-stale` skips the build when dist/ is newer than every file in src/.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

const marker = 'dist/.built';
if (process.argv.includes('--if-stale') && existsSync(marker)) {
  const inputs = Math.max(
    newestMtime('src'),
    statSync('package-lock.json').mtimeMs,
    statSync('tsconfig.json').mtimeMs,
  );
  if (statSync(marker).mtimeMs >= inputs) process.exit(0);
}

rmSync('dist', { recursive: true, force: true });
execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
  stdio: 'inherit',
});
cpSync('src', 'dist', {
  recursive: true,
  filter: (src) =>
    statSync(src).isDirectory() ||
    src.endsWith('.json') ||
    src.includes(`${path.sep}dashboard${path.sep}assets${path.sep}`),
});
cpSync('package.json', marker);
