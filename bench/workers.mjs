// Funded chat calls while cards and face calls run on other connections: the chat calls' p99 alone and under that
// load, with the CPU-heavy work on the event loop (WORKER_THREADS=0, as before the worker pool), on worker threads at
// nice 10 (WORKER_PRIORITY=low) and on worker threads under SCHED_IDLE (the default). Also the
// event-loop delay (p99 and max, through /metrics) and the cards and faces served.
// Usage: npm run build && node bench/workers.mjs
//   (env: BENCH_DURATION seconds per phase, default 10; BENCH_ROUNDS, default 3; BENCH_CHAT_RATE chat calls/s,
//   default 300; BENCH_CARD_CALLERS, default 2; BENCH_FACE_CALLERS, default 1; BENCH_WORKER_THREADS: the pool's
//   size, default kasir's own)
//
// kasir is not pinned to one CPU here, unlike the other benchmarks: its worker threads exist to run on the cores
// its event loop does not use. The load generator and the fake upstream share the machine with it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import sharp from 'sharp';
import { Agent, request } from 'undici';
import { ADMIN, keyWith } from './lib/funded-kasir.mjs';
import { benchScratch, kasirArgs, median, requireBuild, root, startNode } from './lib/harness.mjs';

requireBuild();
const SECONDS = Number(process.env.BENCH_DURATION ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CHAT_RATE = Number(process.env.BENCH_CHAT_RATE ?? 300);
const CARD_CALLERS = Number(process.env.BENCH_CARD_CALLERS ?? 2);
const FACE_CALLERS = Number(process.env.BENCH_FACE_CALLERS ?? 1);
/** The pool's size (unset: kasir's default). */
const POOL_THREADS = process.env.BENCH_WORKER_THREADS;
const json = { 'content-type': 'application/json' };
const CHAT = JSON.stringify({
  model: 'openai/gpt-4.1-mini',
  messages: [{ role: 'user', content: 'Say hello' }],
  max_tokens: 64,
});
/** A podcast cover (3000×3000) and a 60-line code image, in turn: the renderers' heavy end. */
const CARDS = [
  [
    'card',
    { preset: 'podcast', title: 'Ngobrol Santai Tiap Jumat', subtitle: 'Episode 12: harga cabai naik lagi' },
  ],
  [
    'code-image',
    {
      title: 'sum.ts',
      code: 'export function sum(xs: number[]): number {\n  return xs.reduce((a, b) => a + b, 0);\n}\n'.repeat(
        20,
      ),
    },
  ],
];
/** A 640 px portrait (the face model's default side), from a committed test photo. */
const FACE = JSON.stringify({
  image_base64: `data:image/jpeg;base64,${(
    await sharp(readFileSync(path.join(root, 'test/fixtures/faces/man-1.jpg')))
      .resize(640, 640)
      .jpeg()
      .toBuffer()
  ).toString('base64')}`,
});

/** The event-loop delay since the last scrape, in ms (each scrape resets the delay histogram). */
async function loopDelay(kasir) {
  const text = await (await request(`${kasir.url}/metrics`)).body.text();
  const read = (name) => {
    const m = new RegExp(`^kasir_nodejs_eventloop_lag_${name}_seconds ([0-9.e+-]+)$`, 'm').exec(text);
    return m ? Number(m[1]) * 1000 : Number.NaN;
  };
  return { p99: read('p99'), max: read('max') };
}

/** Card and face calls in closed loops until stopped; counts what was served (and anything refused). */
function heavyLoad(kasir, key) {
  let running = true;
  const served = { cards: 0, faces: 0, refused: 0 };
  const dispatcher = new Agent({ connections: CARD_CALLERS + FACE_CALLERS });
  const headers = { ...json, authorization: `Bearer ${key}` };
  const loop = async (next) => {
    for (let n = 0; running; n++) {
      const [tool, body, kind] = next(n);
      const res = await request(`${kasir.url}/v1/tools/${tool}`, {
        method: 'POST',
        headers,
        body,
        dispatcher,
      });
      await res.body.dump();
      if (res.statusCode === 200) served[kind]++;
      else served.refused++;
    }
  };
  const loops = [
    ...Array.from({ length: CARD_CALLERS }, (_, i) =>
      loop((n) => {
        const [tool, body] = CARDS[(n + i) % CARDS.length];
        return [tool, JSON.stringify(body), 'cards'];
      }),
    ),
    ...Array.from({ length: FACE_CALLERS }, () => loop(() => ['face-detect', FACE, 'faces'])),
  ];
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      await dispatcher.close();
      return served;
    },
  };
}

async function phase(kasir, key, heavy) {
  const background = heavy ? heavyLoad(kasir, key) : undefined;
  if (background) await new Promise((r) => setTimeout(r, 500)); // the heavy calls are under way
  await loopDelay(kasir);
  const r = await autocannon({
    url: `${kasir.url}/v1/chat/completions`,
    connections: 8,
    overallRate: CHAT_RATE,
    duration: SECONDS,
    method: 'POST',
    headers: { ...json, authorization: `Bearer ${key}` },
    body: CHAT,
  });
  const lag = await loopDelay(kasir);
  const served = (await background?.stop()) ?? { cards: 0, faces: 0, refused: 0 };
  const ok = r.statusCodeStats?.[200]?.count ?? 0;
  if (r.errors > 0 || ok < r.requests.total)
    throw new Error(`chat calls failed: ${JSON.stringify(r.statusCodeStats)}`);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, lag, served };
}

const { dataDir, children, stop } = benchScratch();
try {
  const upstream = await startNode('fake upstream', ['bench/lib/fake-openai.mjs'], {}, 'load');
  children.push(upstream);
  const start = async (name, threads, priority) => {
    const kasir = await startNode(
      name,
      kasirArgs(),
      {
        HOST: '127.0.0.1',
        PORT: '0',
        DATA_DIR: path.join(dataDir, name.replace(/\W+/g, '-')),
        RATE_LIMIT_PER_MINUTE: '0',
        LOG_LEVEL: 'warn',
        ADMIN_TOKEN: ADMIN,
        UPSTREAM_RETRIES: '0',
        OPENAI_API_KEY: 'sk-bench',
        OPENAI_BASE_URL: `${upstream.url}/v1`,
        ...(threads === undefined ? {} : { WORKER_THREADS: String(threads) }),
        ...(priority === undefined ? {} : { WORKER_PRIORITY: priority }),
      },
      'none',
    );
    children.push(kasir);
    return { kasir, key: await keyWith(kasir, 1e12) };
  };
  const targets = [
    { name: 'event loop (WORKER_THREADS=0)', ...(await start('kasir on the event loop', 0)) },
    {
      name: `worker pool (${POOL_THREADS ?? 'default'} threads), nice 10`,
      ...(await start('kasir with the pool at low priority', POOL_THREADS, 'low')),
    },
    {
      name: `worker pool (${POOL_THREADS ?? 'default'} threads), SCHED_IDLE`,
      ...(await start('kasir with the pool', POOL_THREADS)),
    },
  ];
  // Warm-up: the chat path compiled, fonts, engines and the face model loaded (in the threads too).
  for (const t of targets) await phase(t.kasir, t.key, true);

  const samples = new Map(
    targets.flatMap((t) => [
      [`${t.name} alone`, []],
      [`${t.name} + cards, faces`, []],
    ]),
  );
  for (let round = 1; round <= ROUNDS; round++) {
    for (const t of targets) {
      samples.get(`${t.name} alone`).push(await phase(t.kasir, t.key, false));
      samples.get(`${t.name} + cards, faces`).push(await phase(t.kasir, t.key, true));
    }
    console.error(`  round ${round}/${ROUNDS} done`);
  }

  console.log(
    `\nFunded chat calls at ${CHAT_RATE}/s (8 connections), alone and with ${CARD_CALLERS} card and ${FACE_CALLERS} face callers on other connections; medians of ${ROUNDS} rounds of ${SECONDS} s, Node ${process.version}`,
  );
  console.log(
    `${'phase'.padEnd(52)} ${'req/s'.padStart(6)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'loop p99'.padStart(9)} ${'loop max'.padStart(9)} ${'cards/s'.padStart(8)} ${'faces/s'.padStart(8)}`,
  );
  const row = (name) => {
    const s = samples.get(name);
    const m = (f) => median(s.map(f));
    return {
      name,
      rps: m((x) => x.rps),
      p50: m((x) => x.p50),
      p99: m((x) => x.p99),
      lagP99: m((x) => x.lag.p99),
      lagMax: m((x) => x.lag.max),
      cards: m((x) => x.served.cards / SECONDS),
      faces: m((x) => x.served.faces / SECONDS),
      refused: s.reduce((n, x) => n + x.served.refused, 0),
    };
  };
  const rows = [...samples.keys()].map(row);
  for (const r of rows)
    console.log(
      `${r.name.padEnd(52)} ${r.rps.toFixed(0).padStart(6)} ${String(r.p50).padStart(7)} ${String(r.p99).padStart(7)} ${r.lagP99.toFixed(1).padStart(9)} ${r.lagMax.toFixed(1).padStart(9)} ${r.cards.toFixed(1).padStart(8)} ${r.faces.toFixed(1).padStart(8)}${r.refused ? `  (${r.refused} refused)` : ''}`,
    );
  for (const t of targets) {
    const alone = rows.find((r) => r.name === `${t.name} alone`);
    const loaded = rows.find((r) => r.name === `${t.name} + cards, faces`);
    console.log(
      `${t.name}: chat p99 under card and face load ${(loaded.p99 / Math.max(1, alone.p99)).toFixed(2)}× of alone`,
    );
  }
} finally {
  stop();
}
