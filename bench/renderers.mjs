// The renderers on the built code, in this process: card renders per second on one core with p50/p99 latency
// and the longest event-loop stall each causes; then screenshot latency with a warm browser and the peak RSS of
// kasir's process plus the browser's. Usage: npm run build && node bench/renderers.mjs   (env: BENCH_CARDS,
// BENCH_SHOTS)
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { pinSelf, requireBuild, root } from './lib/harness.mjs';

function printTable(head, rows) {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) =>
    cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
  console.log(`\n${line(head)}`);
  for (const r of rows) console.log(line(r));
}

requireBuild();
pinSelf();
const load = (p) => import(pathToFileURL(path.join(root, 'dist', p)).href);
const { renderTitleCard } = await load('render/title-card.js');
const { renderQuoteCard } = await load('render/quote-card.js');
const { renderCodeCard } = await load('render/code-card.js');
const { highlight } = await load('render/highlight.js');
const { THEMES } = await load('render/themes.js');
const { ScreenshotBrowser } = await load('screenshot/browser.js');

const CARDS = Number(process.env.BENCH_CARDS ?? 40);
const SHOTS = Number(process.env.BENCH_SHOTS ?? 20);
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
const code =
  'export function sum(xs: number[]): number {\n  return xs.reduce((a, b) => a + b, 0);\n}\n'.repeat(8);

const cards = {
  'og-image 1200×630': () =>
    renderTitleCard({
      width: 1200,
      height: 630,
      title: 'Pengumuman penting untuk seluruh warga kota',
      subtitle: 'Jadwal pemadaman listrik bergilir minggu ini',
      theme: THEMES.dark,
      accent: THEMES.dark.accent,
    }),
  'quote-card 1200×630': () =>
    renderQuoteCard('Ilmu itu seperti air: mengalir ke tempat rendah.', 'Pepatah', THEMES.light),
  'card podcast 3000×3000': () =>
    renderTitleCard({
      width: 3000,
      height: 3000,
      title: 'Ngobrol Santai',
      subtitle: 'Episode 12',
      theme: THEMES.dark,
      accent: THEMES.dark.accent,
    }),
  'code-image 24 lines': async () => renderCodeCard('sum.ts', await highlight(code, 'ts')),
};

const rows = [];
for (const [name, draw] of Object.entries(cards)) {
  await draw(); // warm: fonts, grammars, JIT
  const n = name.includes('podcast') ? Math.max(5, Math.floor(CARDS / 8)) : CARDS;
  const stall = monitorEventLoopDelay({ resolution: 5 });
  stall.enable();
  const times = [];
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    await draw();
    times.push(performance.now() - s);
  }
  const total = performance.now() - t0;
  stall.disable();
  times.sort((a, b) => a - b);
  rows.push([
    name,
    (n / (total / 1000)).toFixed(1),
    pct(times, 0.5).toFixed(0),
    pct(times, 0.99).toFixed(0),
    (stall.max / 1e6).toFixed(0),
  ]);
}
printTable(['card', 'renders/s (one core)', 'p50 ms', 'p99 ms', 'longest event-loop stall ms'], rows);

const rssKb = (pid) => {
  let total = 0;
  const walk = (p) => {
    try {
      total += Number(
        execFileSync('ps', ['-o', 'rss=', '-p', String(p)])
          .toString()
          .trim() || 0,
      );
    } catch {}
    let kids = '';
    try {
      kids = execFileSync('ps', ['-o', 'pid=', '--ppid', String(p)]).toString();
    } catch {}
    for (const k of kids.split(/\s+/).filter(Boolean)) walk(Number(k));
  };
  walk(pid);
  return total;
};

const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (!existsSync(chromium)) {
  console.log(`\nscreenshot: skipped (no Chromium at ${chromium})`);
} else {
  const page = `<!doctype html><body style="margin:0;font:16px sans-serif"><h1>Halo</h1>${'<p>Lorem ipsum dolor sit amet.</p>'.repeat(60)}</body>`;
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const port = server.address().port;
  const browser = new ScreenshotBrowser(
    {
      chromiumPath: chromium,
      maxPages: 2,
      timeoutMs: 20_000,
      maxBytes: 20 << 20,
      maxHeight: 16_384,
      idleMs: 0,
    },
    { allowedHosts: new Set([`127.0.0.1:${port}`]) },
  );
  const signal = new AbortController().signal;
  const shot = (fullPage) =>
    browser.capture({ url: `http://127.0.0.1:${port}/`, width: 1280, height: 800, fullPage, signal });
  const cold = performance.now();
  await shot(false);
  const coldMs = performance.now() - cold;
  let peak = 0;
  const shotRows = [];
  for (const fullPage of [false, true]) {
    const times = [];
    for (let i = 0; i < SHOTS; i++) {
      const s = performance.now();
      const r = await shot(fullPage);
      if (!r.ok) throw new Error(r.message);
      times.push(performance.now() - s);
      peak = Math.max(peak, rssKb(process.pid));
    }
    times.sort((a, b) => a - b);
    shotRows.push([
      fullPage ? '1280 wide, fullPage' : '1280×800',
      pct(times, 0.5).toFixed(0),
      pct(times, 0.99).toFixed(0),
    ]);
  }
  printTable(['screenshot (warm browser)', 'p50 ms', 'p99 ms'], shotRows);
  console.log(`first screenshot, browser start included: ${coldMs.toFixed(0)} ms`);
  console.log(`peak RSS, kasir's process and the browser's together: ${(peak / 1024).toFixed(0)} MiB`);
  await browser.close();
  server.close();
}
