// A soak: two instances on one PostgreSQL database and one Redis, mixed traffic at a steady rate (chat streamed and
// not, a paid tool, a free lookup, an unpaid call answered 402) for SOAK_SECONDS, reported per window: p50/p99,
// each instance's highest resident memory, unexpected answers. At the end the ledger must balance: what the answers
// said they charged equals what left the account. Exits non-zero when it does not, when an answer was not the
// expected one, or when memory grew past SOAK_MAX_GROWTH after warm-up (the highest reading of the last third of the
// windows after warm-up against that of the first third).
// Usage: npm run build && node bench/soak.mjs   (env: SOAK_SECONDS=600, SOAK_RPS=100, SOAK_WINDOW=30,
//        SOAK_WARMUP=60, SOAK_MAX_GROWTH=0.2, TEST_POSTGRES_URL, TEST_REDIS_URL)
import { createServer } from 'node:http';
import path from 'node:path';
import { Agent, request } from 'undici';
import { ADMIN, keyWith } from './lib/funded-kasir.mjs';
import { benchScratch, memoryMb, requireBuild, startKasir, startNode } from './lib/harness.mjs';
import { scratchDatabase } from './lib/pg-database.mjs';

const seconds = Number(process.env.SOAK_SECONDS ?? 600);
const rps = Number(process.env.SOAK_RPS ?? 100);
const windowSeconds = Number(process.env.SOAK_WINDOW ?? 30);
const warmupSeconds = Math.min(Number(process.env.SOAK_WARMUP ?? 60), seconds / 2);
const maxGrowth = Number(process.env.SOAK_MAX_GROWTH ?? 0.2);
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

requireBuild();
const { dataDir, children, stop } = benchScratch();

const database = await scratchDatabase('kasir_soak');
const databaseUrl = database.url;

// Frankfurter's /latest answer: the paid tool's first call misses the cache, later ones hit it.
const rates = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({ amount: 1, base: 'USD', date: '2026-11-24', rates: { EUR: 0.8642, IDR: 16744.7 } }),
  );
});
await new Promise((resolve) => rates.listen(0, '127.0.0.1', resolve));
const ratesHost = `127.0.0.1:${rates.address().port}`;

const agent = new Agent({ connections: 64 });
const samples = []; // { at: seconds when it was answered, ms, kind, ok }
const unexpected = new Map();
let charged = 0;

try {
  const upstream = await startNode(
    'fake upstream',
    ['bench/lib/fake-openai.mjs'],
    { BENCH_EVENTS: '20' },
    'load',
  );
  children.push(upstream);
  const shared = {
    ADMIN_TOKEN: ADMIN,
    LOG_LEVEL: 'warn',
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    OPENAI_API_KEY: 'sk-soak',
    OPENAI_BASE_URL: `${upstream.url}/v1`,
    FETCH_ALLOWED_HOSTS: ratesHost,
    FRANKFURTER_BASE_URL: `http://${ratesHost}/v1`,
  };
  const instances = [];
  for (const name of ['a', 'b']) {
    const kasir = await startKasir(path.join(dataDir, name), shared, `kasir ${name}`);
    children.push(kasir);
    instances.push(kasir);
  }
  const key = await keyWith(instances[0], 1_000_000_000_000);
  const paid = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const chat = (stream) =>
    JSON.stringify({
      model: 'openai/gpt-4.1-mini',
      messages: [{ role: 'user', content: 'Say hello.' }],
      max_tokens: 32,
      ...(stream ? { stream: true } : {}),
    });
  // The mix, by weight: each entry says what it sends and which status it expects.
  const mix = [
    { kind: 'chat', weight: 40, path: '/v1/chat/completions', headers: paid, body: chat(false), status: 200 },
    {
      kind: 'chat-stream',
      weight: 20,
      path: '/v1/chat/completions',
      headers: paid,
      body: chat(true),
      status: 200,
    },
    {
      kind: 'tool',
      weight: 15,
      path: '/v1/tools/exchange-rate',
      headers: paid,
      body: JSON.stringify({ from: 'USD', to: 'IDR', amount: 100 }),
      status: 200,
    },
    { kind: 'lookup', weight: 15, path: '/v1/tools/terbilang?n=1250000', status: 200 },
    {
      kind: 'unpaid',
      weight: 10,
      path: '/v1/chat/completions',
      headers: { 'content-type': 'application/json' },
      body: chat(false),
      status: 402,
    },
  ];
  const wheel = mix.flatMap((m) => Array(m.weight).fill(m));
  const before = await balance(instances[0], key);

  let sent = 0;
  const started = performance.now();
  const inflight = new Set();
  const fire = () => {
    const m = wheel[sent % wheel.length];
    const kasir = instances[sent % instances.length];
    sent++;
    const t0 = performance.now();
    const p = request(`${kasir.url}${m.path}`, {
      dispatcher: agent,
      method: m.body ? 'POST' : 'GET',
      headers: m.headers,
      body: m.body,
    })
      .then(async (res) => {
        await res.body.text();
        const ok = res.statusCode === m.status;
        if (ok && m.status === 200 && m.headers?.authorization)
          charged += Number(res.headers['x-service-charged-micro-usd'] ?? Number.NaN);
        if (!ok)
          unexpected.set(
            `${m.kind} ${res.statusCode}`,
            (unexpected.get(`${m.kind} ${res.statusCode}`) ?? 0) + 1,
          );
        const now = performance.now();
        samples.push({ at: (now - started) / 1000, ms: now - t0, kind: m.kind, ok });
      })
      .catch((err) => {
        const what = `${m.kind} ${err.code ?? err.message}`;
        unexpected.set(what, (unexpected.get(what) ?? 0) + 1);
      })
      .finally(() => inflight.delete(p));
    inflight.add(p);
  };

  // Open loop: requests leave on schedule whether or not earlier ones have answered.
  const windows = [];
  let windowStart = 0;
  // Resident memory is read every second and each window keeps its highest reading: between two garbage
  // collections it climbs and drops by a fifth or more, so one reading a window says more about the moment than
  // about a trend, while the peaks of a process that does not leak stay level.
  let peaks = instances.map(() => 0);
  let lastRead = -1;
  await new Promise((resolve) => {
    const tick = setInterval(() => {
      const elapsed = (performance.now() - started) / 1000;
      const due = Math.floor(elapsed * rps);
      while (sent < due && elapsed < seconds) fire();
      if (Math.floor(elapsed) !== lastRead) {
        lastRead = Math.floor(elapsed);
        peaks = instances.map((k, i) => Math.max(peaks[i], memoryMb(k.pid).rss));
      }
      if (elapsed - windowStart >= windowSeconds || elapsed >= seconds) {
        const inWindow = samples.filter((s) => s.at >= windowStart && s.at < elapsed).map((s) => s.ms);
        inWindow.sort((x, y) => x - y);
        const pct = (q) => inWindow[Math.min(inWindow.length - 1, Math.floor(q * inWindow.length))] ?? 0;
        const mem = peaks;
        peaks = instances.map(() => 0);
        windows.push({
          start: windowStart,
          end: elapsed,
          n: inWindow.length,
          p50: pct(0.5),
          p99: pct(0.99),
          rss: mem,
        });
        console.error(
          `t=${elapsed.toFixed(0).padStart(4)} s  ${String(inWindow.length).padStart(6)} answers  p50 ${pct(0.5).toFixed(1)} ms  p99 ${pct(0.99).toFixed(1)} ms  peak rss ${mem.map((m) => m.toFixed(0)).join(' / ')} MB`,
        );
        windowStart = elapsed;
      }
      if (elapsed >= seconds) {
        clearInterval(tick);
        resolve();
      }
    }, 10);
  });
  await Promise.allSettled([...inflight]);
  // Charges reach the database within a few tens of milliseconds.
  await new Promise((r) => setTimeout(r, 500));
  const after = await balance(instances[1], key);

  const warm = windows.filter((w) => w.start >= warmupSeconds);
  // Growth: the highest reading of the last third of the windows after warm-up against that of the first third.
  const third = Math.max(1, Math.floor(warm.length / 3));
  const peakOf = (ws) => instances.map((_, i) => Math.max(...ws.map((w) => w.rss[i])));
  const early = peakOf(warm.length > 0 ? warm.slice(0, third) : windows.slice(0, 1));
  const late = peakOf(warm.length > 0 ? warm.slice(-third) : windows.slice(-1));
  const growth = Math.max(...early.map((r, i) => (late[i] - r) / r));
  const p99s = warm.map((w) => w.p99);
  const report = {
    seconds,
    rps,
    answers: samples.length,
    unexpected: Object.fromEntries(unexpected),
    p99MsAfterWarmup: { min: Math.min(...p99s), max: Math.max(...p99s) },
    peakRssMb: {
      firstThirdAfterWarmup: early.map(Math.round),
      lastThird: late.map(Math.round),
      growth: Number(growth.toFixed(3)),
    },
    ledger: { chargedByHeaders: charged, balanceDrop: before - after, balanced: before - after === charged },
  };
  console.log(JSON.stringify(report, null, 2));
  if (unexpected.size > 0 || !report.ledger.balanced || growth > maxGrowth) process.exitCode = 1;
} finally {
  await agent.close();
  rates.close();
  stop();
  await new Promise((r) => setTimeout(r, 500));
  await database.drop().catch(() => {});
}

async function balance(kasir, key) {
  const res = await request(`${kasir.url}/v1/keys/balance`, { headers: { authorization: `Bearer ${key}` } });
  const body = await res.body.json();
  return body.balance_micro_usd;
}
