// Compiles src/ to dist/ and copies the JSON data files and the dashboard's static assets that ship with kasir.
// `--if-stale` skips the build when dist/ is newer than every file in src/. Progress goes to stderr: the first
// build of a fresh clone takes a minute or more, and a silent terminal looks like a hang.
import { spawn } from 'node:child_process';
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

/**
 * Packages bundled into the server: plain JavaScript of many small modules that reads no files of its own and
 * starts no workers (the query builder, zod, Hono and the small parsers the lookups and media checks use, with the
 * two packages those parsers require), and the ones every start-up loads: undici, ajv, prom-client and debug with
 * what they require. Loaded from node_modules, each file of theirs is resolved, read and wrapped on its own (undici
 * alone is ~90 files); bundled, a start-up takes ~15 % less CPU. Another package that requires one of them (the MCP
 * SDK requires ajv, say) gets its own copy from node_modules: kasir never hands their objects across.
 */
const BUNDLED = new RegExp(
  `^(${[
    'kysely',
    'zod',
    'hono',
    '@hono/[^/]+',
    '@asteasolutions/zod-to-openapi',
    'adhan',
    'image-size',
    'file-type',
    'strtok3',
    'token-types',
    '@tokenizer/[^/]+',
    'uint8array-extras',
    'minisearch',
    'p-limit',
    'yocto-queue',
    'tldts',
    'tldts-core',
    'ipaddr.js',
    'ieee754',
    '@borewit/text-codec',
    'undici',
    'ajv',
    'fast-deep-equal',
    'fast-uri',
    'json-schema-traverse',
    'prom-client',
    'tdigest',
    'bintrees',
    '@opentelemetry/api',
    'debug',
    'ms',
  ].join('|')})(/|$)`,
);

async function bundleServer() {
  const { rolldown } = await import('rolldown');
  const bundle = await rolldown({
    input: { main: 'dist/main.js' },
    platform: 'node',
    external: (id) => !(id.startsWith('.') || path.isAbsolute(id) || BUNDLED.test(id)),
    logLevel: 'warn',
  });
  rmSync('dist/.bundle', { recursive: true, force: true });
  await bundle.write({ dir: 'dist/.bundle', format: 'esm', chunkFileNames: 'chunk-[name]-[hash].js' });
  await bundle.close();
  for (const file of readdirSync('dist/.bundle'))
    cpSync(path.join('dist/.bundle', file), path.join('dist', file));
  rmSync('dist/.bundle', { recursive: true, force: true });
}
if (process.argv.includes('--if-stale') && existsSync(marker)) {
  const inputs = Math.max(
    newestMtime('src'),
    statSync('package-lock.json').mtimeMs,
    statSync('tsconfig.json').mtimeMs,
  );
  if (statSync(marker).mtimeMs >= inputs) process.exit(0);
}

const started = Date.now();
const seconds = () => Math.round((Date.now() - started) / 1000);
console.error('kasir: compiling src/ to dist/ (the first build takes a minute or two; later starts skip it)');
rmSync('dist', { recursive: true, force: true });
const tsc = spawn(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
  stdio: ['ignore', 'inherit', 'inherit'],
});
const ticker = setInterval(() => console.error(`kasir: still compiling… ${seconds()} s`), 10_000);
const [code, signal] = await new Promise((resolve) => tsc.once('exit', (...result) => resolve(result)));
clearInterval(ticker);
if (code !== 0) {
  console.error(`kasir: the build failed (tsc ${signal ?? `exited ${code}`})`);
  process.exit(code ?? 1);
}
cpSync('src', 'dist', {
  recursive: true,
  filter: (src) =>
    statSync(src).isDirectory() ||
    src.endsWith('.json') ||
    src.includes(`${path.sep}dashboard${path.sep}assets${path.sep}`),
});
// The catalog's full check (every entry's shape, price rules and schema, every example validated and priced) runs
// here, once, and keeps the entries it passed with the data's digest: a start-up on the same data and default margins
// takes those entries instead of checking again.
const stamp = spawn(
  process.execPath,
  [
    '--input-type=module',
    '-e',
    "const { stampCheckedData } = await import('./dist/catalog/load.js'); stampCheckedData({ marginPercent: { '*': 0 } });",
  ],
  { stdio: ['ignore', 'inherit', 'inherit'] },
);
const [stampCode] = await new Promise((resolve) => stamp.once('exit', (...result) => resolve(result)));
if (stampCode !== 0) {
  console.error('kasir: the catalog data is invalid (above)');
  process.exit(1);
}
// The server's entry is then bundled: one file (and a chunk per lazily loaded part) instead of ~400 modules of kasir
// and ~1,500 of the query builder, zod and Hono, whose resolving and compiling was most of a start-up. Other packages
// stay external (native code, their own data files, their own workers). dist/'s other modules stay as tsc wrote
// them, for the CLI, the devnet and the benchmarks that import them; every chunk goes to the top of dist/, where
// src/shipped-files.ts finds the data files from.
await bundleServer();
cpSync('package.json', marker);
console.error(`kasir: built dist/ in ${seconds()} s`);
