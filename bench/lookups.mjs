/** Load test of the six free lookups on the built server, against a bare Hono hello-world on the same machine. */
// Usage: npm run build && node bench/lookups.mjs
// Env: BENCH_DURATION (seconds per route and round, default 4), BENCH_ROUNDS (default 3),
//      BENCH_CONNECTIONS (default 32), BENCH_LOG_LEVEL (kasir's LOG_LEVEL, default warn).
// Every round measures every target once, in turn, and the medians are reported: on a shared machine the
// absolute figures drift by tens of percent, so only ratios from interleaved runs mean much. The load
// generator runs in this process, on the same machine as the servers.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const duration = Number(process.env.BENCH_DURATION ?? 4);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);

if (
  !existsSync(path.join(root, 'dist/main.js')) ||
  !existsSync(path.join(root, 'dist/lookups/data/wilayah.json'))
) {
  console.error('bench/lookups.mjs runs the built server: run `npm run build` first.');
  process.exit(1);
}

const tlv = (tag, value) => `${tag}${String(value.length).padStart(2, '0')}${value}`;
/** CRC-16/CCITT-FALSE, to build a valid static QRIS for the qris route. */
function crc16(text) {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}
const qrisBody =
  tlv('00', '01') +
  tlv('01', '11') +
  tlv(
    '26',
    tlv('00', 'COM.GO-JEK.WWW') +
      tlv('01', '936009143456789012') +
      tlv('02', 'G123456789') +
      tlv('03', 'UMI'),
  ) +
  tlv('51', tlv('00', 'ID.CO.QRIS.WWW') + tlv('02', 'ID1025411846005') + tlv('03', 'UMI')) +
  tlv('52', '5812') +
  tlv('53', '360') +
  tlv('58', 'ID') +
  tlv('59', 'WARUNG BU SRI') +
  tlv('60', 'JAKARTA PUSAT') +
  tlv('62', tlv('07', 'A01'));
const qris = `${qrisBody}6304${crc16(`${qrisBody}6304`)}`;

const ROUTES = [
  ['wilayah', '/v1/tools/wilayah', { q: 'bandung' }],
  ['prayer-times', '/v1/tools/prayer-times', { city: 'Jakarta', date: '2026-03-04' }],
  ['verify-nik', '/v1/tools/verify-nik', { nik: '3171011203850001', birth_date: '12-03-1985', gender: 'L' }],
  ['verify-npwp', '/v1/tools/verify-npwp', { npwp: '01.312.166.0-091.000' }],
  ['qris', '/v1/tools/qris', { payload: qris, amount: '15000' }],
  ['terbilang', '/v1/tools/terbilang', { n: '1.250.000' }],
];

const HELLO = `
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
const app = new Hono();
app.get('/hello', (c) => c.json({ hello: 'world' }));
serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
  console.error('kasir listening on http://127.0.0.1:' + info.port);
});
`;

/** Starts a server process and resolves with its base URL, read from its "listening on" line. */
function start(name, args, env) {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stderr.on('data', (chunk) => {
      seen += chunk;
      const m = /listening on (http:\/\/[^\s]+:\d+)/.exec(seen);
      if (m) resolve({ child, url: m[1] });
    });
    child.on('exit', (code) => reject(new Error(`${name} exited with ${code}: ${seen}`)));
  });
}

async function load(url, expectStatus) {
  const r = await autocannon({ url, connections, duration });
  const bad =
    expectStatus === 200 ? r.non2xx : r.requests.total - (r.statusCodeStats?.[expectStatus]?.count ?? 0);
  if (r.errors > 0 || bad > 0) throw new Error(`${url}: ${r.errors} errors, ${bad} unexpected responses`);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

const dataDir = mkdtempSync(path.join(tmpdir(), 'kasir-bench-'));
const servers = [];
try {
  const hello = await start('hello', ['--input-type=module', '-e', HELLO], {});
  servers.push(hello.child);
  const kasir = await start('kasir', ['dist/main.js'], {
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
  });
  servers.push(kasir.child);

  const targets = [
    { name: 'bare Hono hello', url: `${hello.url}/hello`, status: 200 },
    // Everything kasir does to any request (request id, access log, rate-limit check, routing, error body).
    { name: 'kasir floor (404)', url: `${kasir.url}/no-such-route`, status: 404 },
  ];
  for (const [name, route, params] of ROUTES) {
    const url = `${kasir.url}${route}?${new URLSearchParams(params)}`;
    const res = await fetch(url);
    if (res.status !== 200) throw new Error(`${name}: ${res.status} ${await res.text()}`);
    targets.push({ name, url, status: 200 });
  }

  console.log(
    `autocannon, ${connections} connections, ${rounds} interleaved rounds of ${duration} s per target, Node ${process.version}`,
  );
  for (const t of targets) await autocannon({ url: t.url, connections, duration: 1 }); // warm-up: JIT, lazy data
  const samples = new Map(targets.map((t) => [t.name, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const t of targets) samples.get(t.name).push(await load(t.url, t.status));
    console.log(`  round ${round} of ${rounds} done`);
  }
  const rows = targets.map((t) => {
    const s = samples.get(t.name);
    return {
      name: t.name,
      rps: median(s.map((x) => x.rps)),
      p50: median(s.map((x) => x.p50)),
      p99: median(s.map((x) => x.p99)),
    };
  });
  const base = rows[0].rps;
  console.log('');
  console.log('target               req/s   p50 ms  p99 ms   × bare Hono req/s');
  for (const r of rows) {
    console.log(
      `${r.name.padEnd(18)} ${r.rps.toFixed(0).padStart(7)} ${String(r.p50).padStart(8)} ${String(r.p99).padStart(7)}   ${(r.rps / base).toFixed(2)}`,
    );
  }
} finally {
  for (const child of servers) child.kill('SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
}
