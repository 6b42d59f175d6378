// Paid calls (checkout + chat completions) against a bare undici pass-through proxy to the same fake upstream.
// Usage: npm run build && node bench/paid.mjs        (env: BENCH_DURATION, BENCH_ROUNDS, BENCH_CONNECTIONS [64])
// Measures, in one run: req/s, server CPU µs per request, p50/p99 of a paid call on a funded prepaid key,
// the 402 paths (no key; a key with an empty balance), streamed calls, latency at one connection, time to
// first byte on a slow stream, peak memory, start-up time, funded calls on PostgreSQL with the charge journal as
// rows against the file journal, and hold+capture per second on SQLite and PostgreSQL; then a summary of the ratios
// against the bare pass-through, which .ci/run prints from a short run.
import path from 'node:path';
import { request } from 'undici';
import { ADMIN, keyWith } from './lib/funded-kasir.mjs';
import {
  benchScratch,
  defaultConnections,
  gcLine,
  gcTotals,
  header,
  interleaved,
  load,
  median,
  memoryMb,
  pinSelf,
  printTable,
  ratio,
  requireBuild,
  root,
  roundsRange,
  spanOf,
  startKasir,
  startNode,
  warmup,
} from './lib/harness.mjs';
import { holdCaptureRate } from './lib/ledger-rate.mjs';
import { scratchDatabase } from './lib/pg-database.mjs';

requireBuild();
pinSelf();
// The paid call's aims were set on a run at 64 connections.
defaultConnections(64);
const { dataDir, children, stop } = benchScratch();

/**
 * Time to the first body byte and to the end, over `n` sequential streamed calls after `warmup` unmeasured ones
 * (as every other measurement here warms its target up first); medians.
 */
async function streamTimings(url, headers, body, n = 40, warmup = 10) {
  const ttfb = [];
  const total = [];
  for (let i = -warmup; i < n; i++) {
    const t0 = performance.now();
    const res = await request(url, { method: 'POST', headers, body });
    let first = 0;
    for await (const _chunk of res.body) if (!first) first = performance.now() - t0;
    if (i < 0) continue;
    total.push(performance.now() - t0);
    ttfb.push(first);
  }
  return { ttfb: median(ttfb), total: median(total) };
}

try {
  const fast = await startNode('fake upstream', ['bench/lib/fake-openai.mjs'], {}, 'load');
  const slow = await startNode(
    'slow fake upstream',
    ['bench/lib/fake-openai.mjs'],
    { BENCH_EVENTS: '10', BENCH_EVENT_DELAY_MS: '5' },
    'load',
  );
  children.push(fast, slow);
  const bare = await startNode('bare proxy', ['bench/lib/bare-proxy.mjs'], {
    UPSTREAM_URL: `${fast.url}/v1`,
  });
  const bareSlow = await startNode('bare proxy (slow)', ['bench/lib/bare-proxy.mjs'], {
    UPSTREAM_URL: `${slow.url}/v1`,
  });
  const kasirOn = (upstream, dir, name) =>
    startKasir(
      path.join(dataDir, dir),
      {
        ADMIN_TOKEN: ADMIN,
        UPSTREAM_RETRIES: '0',
        OPENAI_API_KEY: 'sk-bench',
        OPENAI_BASE_URL: `${upstream.url}/v1`,
      },
      name,
    );
  const kasir = await kasirOn(fast, 'a', 'kasir');
  const kasirSlow = await kasirOn(slow, 'b', 'kasir (slow)');
  children.push(bare, bareSlow, kasir, kasirSlow);
  const idle = { kasir: memoryMb(kasir.pid).rss, bare: memoryMb(bare.pid).rss };

  const funded = await keyWith(kasir, 1_000_000_000_000);
  const empty = await keyWith(kasir, 0);
  const json = { 'content-type': 'application/json' };
  const plain = JSON.stringify({
    model: 'openai/gpt-4.1-mini',
    messages: [{ role: 'user', content: 'Say hello' }],
    max_tokens: 64,
  });
  const streamed = JSON.stringify({
    model: 'openai/gpt-4.1-mini',
    messages: [{ role: 'user', content: 'Say hello' }],
    max_tokens: 64,
    stream: true,
  });
  const chat = (target, body, headers = {}, status = 200) => ({
    ...target,
    name: target.name,
    url: `${target.url}/v1/chat/completions`,
    method: 'POST',
    headers: { ...json, ...headers },
    body,
    status,
  });

  header('paid calls');
  const gcBefore = await gcTotals(kasir);
  const calls = await interleaved([
    chat({ ...bare, name: 'bare proxy' }, plain),
    chat({ ...kasir, name: 'kasir, funded key (billing on)' }, plain, { authorization: `Bearer ${funded}` }),
    chat({ ...kasir, name: 'kasir, no payment → 402' }, plain, {}, 402),
    chat({ ...kasir, name: 'kasir, empty key → 402' }, plain, { authorization: `Bearer ${empty}` }, 402),
  ]);
  printTable('Non-streamed chat completion (fake upstream answers at once)', calls);
  // A run whose funded calls read low can be the machine or the instance's GC state (see the README's "Benchmarks"):
  // this line tells them apart.
  console.log(`kasir's garbage collection over these runs: ${gcLine(gcBefore, await gcTotals(kasir))}`);

  const gcBeforeStreams = await gcTotals(kasir);
  const streams = await interleaved([
    chat({ ...bare, name: 'bare proxy, stream' }, streamed),
    chat({ ...kasir, name: 'kasir, stream, funded key' }, streamed, { authorization: `Bearer ${funded}` }),
  ]);
  printTable('Streamed chat completion (12 frames, no delay)', streams);
  console.log(
    `kasir's garbage collection over these runs: ${gcLine(gcBeforeStreams, await gcTotals(kasir))}`,
  );

  const one = await interleaved(
    [
      chat({ ...fast, name: 'upstream direct' }, plain),
      chat({ ...bare, name: 'bare proxy' }, plain),
      chat({ ...kasir, name: 'kasir, funded key' }, plain, { authorization: `Bearer ${funded}` }),
    ],
    { connections: 1 },
  );
  printTable('One connection (latency)', one, 'bare proxy');
  const [direct, bareOne, kasirOne] = one;
  const added = (r) => (r.p50 === 0 ? 0 : r.p50 - direct.p50);
  const meanLatency = (r) => 1000 / r.rps;
  // Like every other ratio here, the median of per-round ratios: each round measures the three back to back, so a
  // slow spell of the machine between rounds moves both sides of a round's ratio rather than one side of the ratio.
  const addedPerRound = kasirOne.samples.map(
    (k, i) =>
      (meanLatency(k) - meanLatency(direct.samples[i])) /
      Math.max(1e-9, meanLatency(bareOne.samples[i]) - meanLatency(direct.samples[i])),
  );
  const addedRatio = median(addedPerRound);
  console.log(
    `mean latency: direct ${meanLatency(direct).toFixed(3)} ms, bare proxy ${meanLatency(bareOne).toFixed(3)} ms (+${(meanLatency(bareOne) - meanLatency(direct)).toFixed(3)}), kasir ${meanLatency(kasirOne).toFixed(3)} ms (+${(meanLatency(kasirOne) - meanLatency(direct)).toFixed(3)}); added-latency ratio kasir/bare ${addedRatio.toFixed(2)} (rounds ${spanOf(addedPerRound)}); p50 added ${added(bareOne)} vs ${added(kasirOne)} ms`,
  );

  const slowKey = await keyWith(kasirSlow, 1_000_000_000_000);
  // Both slow targets get the warm-up every other measurement gets (BENCH_WARMUP seconds of load at the usual
  // connection count), so the timings below are of compiled code, not of a process that has served a few calls.
  for (const warm of [
    chat({ ...bareSlow, name: 'bare proxy (slow), warm-up' }, streamed),
    chat({ ...kasirSlow, name: 'kasir (slow), warm-up' }, streamed, { authorization: `Bearer ${slowKey}` }),
  ])
    await load(warm, { duration: warmup });
  const bareT = await streamTimings(`${bareSlow.url}/v1/chat/completions`, json, streamed);
  const kasirT = await streamTimings(
    `${kasirSlow.url}/v1/chat/completions`,
    { ...json, authorization: `Bearer ${slowKey}` },
    streamed,
  );
  console.log(
    `\nSlow stream (10 events 5 ms apart), 40 sequential calls after a ${warmup} s warm-up under load and 10 sequential warm-up calls, medians`,
  );
  console.log(
    `  bare proxy: first byte ${bareT.ttfb.toFixed(2)} ms of ${bareT.total.toFixed(2)} ms (${(bareT.ttfb / bareT.total).toFixed(3)})`,
  );
  console.log(
    `  kasir:      first byte ${kasirT.ttfb.toFixed(2)} ms of ${kasirT.total.toFixed(2)} ms (${(kasirT.ttfb / kasirT.total).toFixed(3)})`,
  );

  const mem = { kasir: memoryMb(kasir.pid), bare: memoryMb(bare.pid) };
  console.log('\nMemory (MB): idle RSS → peak RSS under the runs above');
  console.log(
    `  bare proxy: ${idle.bare.toFixed(0)} → ${mem.bare.peak.toFixed(0)} (+${(mem.bare.peak - idle.bare).toFixed(0)})`,
  );
  console.log(
    `  kasir:      ${idle.kasir.toFixed(0)} → ${mem.kasir.peak.toFixed(0)} (+${(mem.kasir.peak - idle.kasir).toFixed(0)})`,
  );
  console.log(
    `  peak ratio ${(mem.kasir.peak / mem.bare.peak).toFixed(2)}; growth-under-load ratio ${((mem.kasir.peak - idle.kasir) / Math.max(1, mem.bare.peak - idle.bare)).toFixed(2)}`,
  );

  // With a shared database the charge journal is rows there (what lets an instance be replaced on an empty disk);
  // its cost beside the file journal it replaced, on the same PostgreSQL database.
  /** The PostgreSQL rows: file journal, then journal rows; unset when no PostgreSQL answered. */
  let pgCalls;
  const database = await scratchDatabase('kasir_bench_paid').catch((err) => {
    console.log(`\nPostgreSQL: skipped (${err.message})`);
    return null;
  });
  if (database) {
    try {
      const onPg = (dir, journal, name) =>
        startKasir(
          path.join(dataDir, dir),
          {
            ADMIN_TOKEN: ADMIN,
            UPSTREAM_RETRIES: '0',
            OPENAI_API_KEY: 'sk-bench',
            OPENAI_BASE_URL: `${fast.url}/v1`,
            DATABASE_URL: database.url,
            CHARGE_JOURNAL: journal,
          },
          name,
        );
      const rows = await onPg('pg-rows', 'database', 'kasir, PostgreSQL, journal rows');
      children.push(rows);
      const file = await onPg('pg-file', 'file', 'kasir, PostgreSQL, file journal');
      children.push(file);
      pgCalls = await interleaved([
        chat(file, plain, { authorization: `Bearer ${await keyWith(file, 1_000_000_000_000)}` }),
        chat(rows, plain, { authorization: `Bearer ${await keyWith(rows, 1_000_000_000_000)}` }),
      ]);
      printTable(
        'Funded calls on PostgreSQL: the charge journal as rows (group commit) against the file journal',
        pgCalls,
      );
    } finally {
      await database.drop().catch(() => {});
    }
  }

  // Start-up: the first instance's start is one sample, taken while the machine was starting the other servers; five
  // more starts of the same configuration, each on an empty data folder and stopped once ready, make the figure a
  // median.
  const starts = [kasir];
  for (let i = 0; i < 5; i++) {
    const again = await kasirOn(fast, `start-${i}`, 'kasir (start-up)');
    again.child.kill('SIGTERM');
    await new Promise((resolve) => again.child.once('exit', resolve));
    starts.push(again);
  }
  const startSeconds = median(starts.map((k) => k.readyMs)) / 1000;
  const startCpuSeconds = median(starts.map((k) => k.readyCpuMs)) / 1000;
  console.log(
    `\nStart to ready (s), ${starts.length} starts on empty data folders: ${starts.map((k) => (k.readyMs / 1000).toFixed(2)).join(', ')}; CPU ${starts.map((k) => (k.readyCpuMs / 1000).toFixed(2)).join(', ')}`,
  );
  // Node reads and parses the certificates this names at every process's start, whatever the process does.
  if (process.env.NODE_EXTRA_CA_CERTS)
    console.log(
      `  NODE_EXTRA_CA_CERTS is set (${process.env.NODE_EXTRA_CA_CERTS}): part of each start is Node parsing it`,
    );

  // One line per figure, against the bare pass-through, so a regression shows in CI's output the day it lands.
  // The ratios measured round by round carry their rounds' range: a median outside the range of earlier runs is a
  // regression, one inside it may be this machine's weather.
  const perRoundFigure = (what, row, base, figure, aim) => [
    what,
    ratio(row, base, figure),
    aim,
    `(rounds ${roundsRange(row, base, figure)})`,
  ];
  const summary = [
    perRoundFigure('funded calls, req/s ÷ bare', calls[1], calls[0], 'rps', '≥ 0.6'),
    perRoundFigure('funded calls, CPU per call ÷ bare', calls[1], calls[0], 'cpuPerReq', '≤ 2'),
    perRoundFigure('streamed calls, req/s ÷ bare', streams[1], streams[0], 'rps', '≥ 0.5'),
    ['added latency at one connection ÷ bare', addedRatio, '≤ 2', `(rounds ${spanOf(addedPerRound)})`],
    ['peak memory ÷ bare', mem.kasir.peak / mem.bare.peak, '≤ 1.5'],
    perRoundFigure('402 (no payment), req/s ÷ funded', calls[2], calls[1], 'rps', '≥ 1'),
    ['slow stream, first byte ÷ total', kasirT.ttfb / kasirT.total, '≤ 0.05'],
    [
      'start to ready, s (CPU s)',
      startSeconds,
      '≤ 1',
      `(${startCpuSeconds.toFixed(2)}; median of ${starts.length} starts)`,
    ],
    ...(pgCalls === undefined
      ? []
      : [
          perRoundFigure(
            'PostgreSQL journal rows, req/s ÷ file journal',
            pgCalls[1],
            pgCalls[0],
            'rps',
            '≥ 0.9',
          ),
        ]),
  ];
  console.log('\nSummary (aims beside)');
  for (const [what, value, aim, extra = ''] of summary)
    console.log(`  ${what.padEnd(44)} ${value.toFixed(2).padStart(6)} ${extra} (aim ${aim})`);

  console.log(
    '\nLedger: reserve + charge per second, with a usage row (this process, one call at a time and 16 in flight)',
  );
  for (const line of await holdCaptureRate(root, dataDir)) console.log(`  ${line}`);
} finally {
  stop();
}
