// Compiles src/ to dist/ and copies the JSON data files that ship with kasir.
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';

rmSync('dist', { recursive: true, force: true });
execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
  stdio: 'inherit',
});
cpSync('src', 'dist', { recursive: true, filter: (src) => !src.includes('.') || src.endsWith('.json') });
