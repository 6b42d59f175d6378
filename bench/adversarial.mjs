// Bodies built to make a quote expensive: what validating and quoting one costs per MB, shape by shape, and how
// an instance serving ordinary paid calls fares while such bodies arrive on other connections.
// Usage: npm run build && node bench/adversarial.mjs      (env: BENCH_DURATION seconds per phase, default 10)
//
// Part 1 runs in this process: parse + the checkout's pre-payment work (token count, validation, quote) on 1 MB
// and 4 MB bodies; equal ms/MB at both sizes means linear cost. Part 2 runs the built server: funded chat calls
// from autocannon (16 connections), first alone, then with 4 more connections sending 1 MB adversarial bodies
// without payment (each answered 402 or 400) in a loop. It reports the paid calls' throughput and p99 latency
// and the server's event-loop delay (p99 and max, from monitorEventLoopDelay through /metrics).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { Agent, request } from 'undici';
import { keyWith, startChatKasir } from './lib/funded-kasir.mjs';
import { cleanupOnExit, pinSelf, requireBuild, root } from './lib/harness.mjs';

requireBuild();
const MB = 1024 * 1024;
const PHASE_SECONDS = Number(process.env.BENCH_DURATION ?? 10);
const MODEL = 'openai/gpt-4.1-mini';

const chat = (content, extra = {}) =>
  JSON.stringify({ model: MODEL, messages: [{ role: 'user', content }], ...extra });
const words = (bytes) => {
  const w = ['the', 'quick', 'brown', 'fox', 'Selamat', 'pagi', 'harga', 'nasi', '12345', 'hello,', 'world.'];
  let s = '';
  while (s.length < bytes) s += `${w[Math.floor(Math.random() * w.length)]} `;
  return s;
};

/** Each shape as a body of about `bytes` bytes. */
const SHAPES = {
  'ordinary prose': (bytes) => chat(words(bytes)),
  'one character repeated': (bytes) => chat('x'.repeat(bytes)),
  'random base64': (bytes) => chat(randomBytes(Math.floor((bytes * 3) / 4)).toString('base64')),
  'a run of CJK': (bytes) => chat('中文字'.repeat(Math.floor(bytes / 9))),
  'a run of emoji': (bytes) => chat('😀'.repeat(Math.floor(bytes / 4))),
  'special-token text': (bytes) => chat('<|endoftext|>'.repeat(Math.floor(bytes / 13))),
  'tiny messages': (bytes) =>
    JSON.stringify({
      model: MODEL,
      messages: Array.from({ length: Math.floor(bytes / 31) }, (_, i) => ({
        role: i % 2 ? 'assistant' : 'user',
        content: 'hi',
      })),
    }),
  'deeply nested JSON': (bytes) =>
    chat('hi', { tools: [{ type: 'function', function: { name: 'f', parameters: '__' } }] }).replace(
      '"__"',
      `${'['.repeat(bytes / 2)}${']'.repeat(bytes / 2)}`,
    ),
};

/** The checkout's work before any payment on a raw chat body, as the chat route and pipeline do it. */
async function prePaymentCheck() {
  const { loadCatalog } = await import(path.join(root, 'dist/catalog/load.js'));
  const { parseJsonBody } = await import(path.join(root, 'dist/http/body.js'));
  const catalog = loadCatalog({ marginPercent: {} });
  const entry = catalog.find(MODEL);
  return async (raw) => {
    let input;
    try {
      input = parseJsonBody(raw);
    } catch {
      return 'refused (400)';
    }
    await catalog.prepare(entry, input, raw.length);
    const checked = catalog.validate(entry, input);
    if (!checked.ok) return 'refused (400)';
    return `quoted ${(checked.modelQuote ?? catalog.quote(entry, checked.value, 'prepaid')).costMicroUsd} µUSD`;
  };
}

/** Part 1: the checkout's work before any payment, per adversarial shape. */
async function validationCost() {
  const prePayment = await prePaymentCheck();
  // Warm up: compile the counting code and load the encoder.
  for (const build of Object.values(SHAPES)) await prePayment(Buffer.from(build(64 * 1024)));
  console.log('\nValidation and quote before payment, per shape (parse, token count, validation, quote)');
  console.log(
    `${'shape'.padEnd(24)} ${'1 MB ms'.padStart(8)} ${'4 MB ms'.padStart(8)} ${'ms/MB'.padStart(6)}  outcome`,
  );
  for (const [name, build] of Object.entries(SHAPES)) {
    const times = [];
    let outcome = '';
    for (const size of [MB, 4 * MB]) {
      const raw = Buffer.from(build(size));
      const started = performance.now();
      outcome = await prePayment(raw);
      times.push({ ms: performance.now() - started, mb: raw.length / MB });
    }
    const [one, four] = times;
    console.log(
      `${name.padEnd(24)} ${one.ms.toFixed(0).padStart(8)} ${four.ms.toFixed(0).padStart(8)} ${(four.ms / four.mb).toFixed(0).padStart(6)}  ${outcome} (4 MB)`,
    );
  }
}

/**
 * Part 1b: a conversation's next turn. A chat client sends every earlier turn again with each new message; texts
 * counted lately are looked up, so the next turn's quote counts only its new message.
 */
async function conversationCost() {
  const prePayment = await prePaymentCheck();
  const turns = [];
  for (let i = 0; i < 40; i++)
    turns.push({ role: i % 2 ? 'assistant' : 'user', content: `${i}: ${words(2 * 1024)}` });
  const body = (messages) => Buffer.from(JSON.stringify({ model: MODEL, messages, max_tokens: 256 }));
  const time = async (raw) => {
    const started = performance.now();
    await prePayment(raw);
    return performance.now() - started;
  };
  // Warm up the encoder and the checks on other text.
  await time(body([{ role: 'user', content: words(4 * 1024) }]));
  const first = await time(body(turns));
  const next = await time(body([...turns, { role: 'user', content: `next: ${words(2 * 1024)}` }]));
  console.log(
    `\nA conversation's next turn (${turns.length} turns, ${Math.round(body(turns).length / 1024)} KB): first quote ` +
      `${first.toFixed(1)} ms, the next turn's quote (one new 2 KB message) ${next.toFixed(1)} ms`,
  );
}

/** The event-loop delay since the last scrape, in ms (each scrape resets prom-client's delay histogram). */
async function loopDelay(kasir) {
  const res = await request(`${kasir.url}/metrics`);
  const text = await res.body.text();
  const read = (name) => {
    const m = new RegExp(`^kasir_nodejs_eventloop_lag_${name}_seconds ([0-9.e+-]+)$`, 'm').exec(text);
    return m ? Number(m[1]) * 1000 : Number.NaN;
  };
  return { p99: read('p99'), max: read('max') };
}

/** Part 2: paid traffic alone, then with adversarial bodies arriving on other connections. */
async function underAttack() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kasir-bench-'));
  const children = [];
  cleanupOnExit(children);
  try {
    const { kasir } = await startChatKasir(children, dataDir);
    const key = await keyWith(kasir, 1e12);

    const paid = (seconds) =>
      autocannon({
        url: `${kasir.url}/v1/chat/completions`,
        connections: 16,
        duration: seconds,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: chat('Say hello', { max_tokens: 64 }),
      });
    const bodies = Object.values(SHAPES).map((build) => build(MB));
    // Each attack body is new to the instance (a number put ahead of its text): texts counted lately are looked up
    // rather than counted again, and an attacker would not send the same text twice.
    let made = 0;
    const fresh = (n) => {
      made++;
      return Buffer.from(bodies[n % bodies.length].replace('"content":"', `"content":"${made} `));
    };
    const attack = () => {
      let running = true;
      let sent = 0;
      const dispatcher = new Agent({ connections: 4 });
      const loop = async (i) => {
        for (let n = i; running; n++) {
          const res = await request(`${kasir.url}/v1/chat/completions`, {
            method: 'POST',
            body: fresh(n),
            headers: { 'content-type': 'application/json' },
            dispatcher,
          });
          await res.body.dump();
          sent++;
        }
      };
      const loops = [0, 1, 2, 3].map(loop);
      return {
        stop: async () => {
          running = false;
          await Promise.all(loops);
          await dispatcher.close();
          return sent;
        },
      };
    };

    await paid(5); // warm-up
    const phases = [];
    for (const withAttack of [false, true]) {
      await loopDelay(kasir); // resets the delay histogram
      const attacker = withAttack ? attack() : null;
      const r = await paid(PHASE_SECONDS);
      const adversarial = (await attacker?.stop()) ?? 0;
      const lag = await loopDelay(kasir);
      phases.push({
        name: withAttack ? 'paid calls + 1 MB adversarial bodies on 4 connections' : 'paid calls alone',
        rps: r.requests.average,
        p99: r.latency.p99,
        errors: r.errors + r.non2xx,
        lagP99: lag.p99,
        lagMax: lag.max,
        adversarialPerSecond: adversarial / PHASE_SECONDS,
      });
    }
    console.log(
      `\nAn instance under attack: funded chat calls on 16 connections, ${PHASE_SECONDS} s per phase`,
    );
    console.log(
      `${'phase'.padEnd(56)} ${'req/s'.padStart(7)} ${'p99 ms'.padStart(7)} ${'loop p99 ms'.padStart(12)} ${'loop max ms'.padStart(12)}  adversarial bodies/s`,
    );
    for (const p of phases) {
      console.log(
        `${p.name.padEnd(56)} ${p.rps.toFixed(0).padStart(7)} ${String(p.p99).padStart(7)} ${p.lagP99.toFixed(1).padStart(12)} ${p.lagMax.toFixed(1).padStart(12)}  ${p.adversarialPerSecond.toFixed(1)}${p.errors ? ` (${p.errors} paid calls failed)` : ''}`,
      );
    }
    const [alone, attacked] = phases;
    console.log(
      `paid throughput under attack: ${(attacked.rps / alone.rps).toFixed(2)}× of alone; p99 latency ${(attacked.p99 / Math.max(1, alone.p99)).toFixed(2)}×`,
    );
  } finally {
    for (const c of children) c.child.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await validationCost();
await conversationCost();
pinSelf();
await underAttack();
