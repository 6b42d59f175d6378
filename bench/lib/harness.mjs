// Shared benchmark plumbing: spawn servers pinned to a CPU, drive load with autocannon, read CPU time and
// peak memory from /proc, and print medians of interleaved rounds, with ratios against a baseline taken round
// by round (each round measures every target back to back, so a slow spell of the machine hits both sides).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const duration = Number(process.env.BENCH_DURATION ?? 2);
export const rounds = Number(process.env.BENCH_ROUNDS ?? 7);
export let connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
/** A bench whose figures are read at another concurrency by default (BENCH_CONNECTIONS still wins). */
export function defaultConnections(n) {
  if (process.env.BENCH_CONNECTIONS === undefined) connections = n;
}
/**
 * Seconds of load each target gets before it is measured. kasir's hot path is large: V8 keeps optimising it
 * (tens of milliseconds of compiling per function) for several seconds, and its first rounds after a one-second
 * warm-up ran 20–40% above its steady state, while a bare proxy is warm within a second.
 */
export const warmup = Number(process.env.BENCH_WARMUP ?? 5);
const cpus = (() => {
  try {
    return readFileSync('/proc/cpuinfo', 'utf8').match(/^processor/gm)?.length ?? 1;
  } catch {
    return 1;
  }
})();
/** With two or more CPUs, servers under test get the last one; load and upstreams share the rest. */
export const SERVER_CPU = cpus > 1 ? String(cpus - 1) : null;
export const LOAD_CPUS = cpus > 1 ? `0-${cpus - 2}` : null;

export function requireBuild() {
  if (!existsSync(path.join(root, 'dist/main.js'))) {
    console.error('benchmarks run the built server: run `npm run build` first (npm run bench does).');
    process.exit(1);
  }
}

/** Pins this process (the load generator) away from the server CPU. */
export function pinSelf() {
  if (LOAD_CPUS) spawn('taskset', ['-cp', LOAD_CPUS, String(process.pid)], { stdio: 'ignore' });
}

/**
 * The node arguments `npm start` runs kasir with (its V8 flags, then dist/main.js), read from package.json so
 * that benchmarks measure the service as it is started.
 */
export function kasirArgs() {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  const argv = pkg.scripts.start.split(/\s+/);
  if (argv[0] !== 'node')
    throw new Error(`package.json start script does not start with node: ${pkg.scripts.start}`);
  // BENCH_NODE_ARGS: extra node flags for every kasir a bench starts (e.g. `--cpu-prof --cpu-prof-dir=prof`).
  const extra = (process.env.BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  return [...extra, ...argv.slice(1)];
}

/**
 * Starts `node <args>` and resolves with its base URL, read from its "listening on" line on stderr.
 * `cpu`: 'server' pins it to the server CPU, 'load' to the load CPUs, 'none' leaves it on every CPU.
 */
export function startNode(name, args, env = {}, cpu = 'server') {
  const pin = cpu === 'server' ? SERVER_CPU : cpu === 'load' ? LOAD_CPUS : null;
  const [cmd, argv] = pin ? ['taskset', ['-c', pin, process.execPath, ...args]] : [process.execPath, args];
  const child = spawn(cmd, argv, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stderr.on('data', (chunk) => {
      seen += chunk;
      const m = /listening on (http:\/\/[^\s]+:\d+)/.exec(seen);
      // readyMs and readyCpuMs: from the spawn to its "listening" line, wall clock and the process's own CPU.
      if (m)
        resolve({
          name,
          child,
          url: m[1],
          pid: child.pid,
          readyMs: performance.now() - started,
          readyCpuMs: cpuMicros(child.pid) / 1000,
        });
    });
    child.on('exit', (code) => reject(new Error(`${name} exited with ${code}: ${seen}`)));
  });
}

/** The node process itself (taskset execs node in place, so the pid is the same). */
function procStat(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of the full line: 12 and 13 after the ") " split, in clock ticks.
  return Number(fields[11]) + Number(fields[12]);
}
const TICK_US = 1_000_000 / 100;

/** CPU microseconds the process used so far. */
export function cpuMicros(pid) {
  return procStat(pid) * TICK_US;
}

/** Resident memory now and at its peak, in MB. */
export function memoryMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/**
 * kasir's garbage collections so far, read from its /metrics: for minor (scavenges) and major collections, how many
 * and their seconds in all.
 */
export async function gcTotals(kasir) {
  const text = await (await fetch(`${kasir.url}/metrics`)).text();
  const read = (kind, figure) =>
    Number(
      new RegExp(`^kasir_nodejs_gc_duration_seconds_${figure}\\{kind="${kind}"\\} (\\S+)$`, 'm').exec(
        text,
      )?.[1] ?? 0,
    );
  const of = (kind) => ({ count: read(kind, 'count'), seconds: read(kind, 'sum') });
  return { minor: of('minor'), major: of('major') };
}

/** What `gcTotals` read at `after` and not at `before`, as one line: counts and mean pauses. */
export function gcLine(before, after) {
  const part = (kind, what) => {
    const count = after[kind].count - before[kind].count;
    const ms = count === 0 ? 0 : ((after[kind].seconds - before[kind].seconds) * 1000) / count;
    return `${count} ${what} of ${ms.toFixed(1)} ms mean`;
  };
  return `${part('minor', 'scavenges')}, ${part('major', 'full collections')}`;
}

/** Runs autocannon and returns req/s, latency percentiles and server CPU µs per request. */
export async function load(target, opts = {}) {
  const before = cpuMicros(target.pid);
  const r = await autocannon({
    url: target.url,
    connections: opts.connections ?? connections,
    duration: opts.duration ?? duration,
    method: target.method ?? 'GET',
    headers: target.headers,
    body: target.body,
  });
  const used = cpuMicros(target.pid) - before;
  const expected = target.status ?? 200;
  const ok = r.statusCodeStats?.[expected]?.count ?? 0;
  const bad = r.requests.total - ok;
  if (r.errors > 0 || bad > r.requests.total * 0.001) {
    throw new Error(
      `${target.name}: ${r.errors} errors, ${bad} responses not ${expected} (${JSON.stringify(r.statusCodeStats)})`,
    );
  }
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    cpuPerReq: used / Math.max(1, r.requests.total),
  };
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/** Runs every target once per round, in turn, and returns each target's medians and its per-round samples. */
export async function interleaved(targets, opts = {}) {
  for (const t of targets) await load(t, { ...opts, duration: warmup }); // JIT, caches, pools
  const samples = new Map(targets.map((t) => [t.name, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const t of targets) samples.get(t.name).push(await load(t, opts));
    console.error(`  round ${round}/${rounds} done`);
  }
  return targets.map((t) => {
    const s = samples.get(t.name);
    return {
      name: t.name,
      rps: median(s.map((x) => x.rps)),
      p50: median(s.map((x) => x.p50)),
      p99: median(s.map((x) => x.p99)),
      cpuPerReq: median(s.map((x) => x.cpuPerReq)),
      samples: s,
    };
  });
}

/** `row`'s figure divided by the base's figure, round by round. */
function perRound(row, base, figure) {
  return row.samples.map((x, i) => x[figure] / base.samples[i][figure]);
}

/** The median of the per-round ratios of `row`'s figure to `base`'s (what printTable's ratio columns show). */
export const ratio = (row, base, figure) => median(perRound(row, base, figure));

/** The lowest and highest of `values`, as `low–high`. */
export const spanOf = (values) => `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}`;

/** The lowest and highest per-round ratio of `row`'s figure to `base`'s: how far one round can stray. */
export const roundsRange = (row, base, figure) => spanOf(perRound(row, base, figure));

/**
 * Medians per target; the ratio columns are medians of per-round ratios against `baseName`, and `CPU× range`
 * shows how far the rounds spread (a wide range means the machine was busy with something else).
 */
export function printTable(title, rows, baseName = rows[0]?.name) {
  const base = rows.find((r) => r.name === baseName);
  console.log(`\n${title}`);
  console.log(
    `${'target'.padEnd(34)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'CPU µs/req'.padStart(11)}  ×req/s  ×CPU  CPU× range`,
  );
  for (const r of rows) {
    const cpuRatios = perRound(r, base, 'cpuPerReq');
    const range = spanOf(cpuRatios);
    console.log(
      `${r.name.padEnd(34)} ${r.rps.toFixed(0).padStart(8)} ${String(r.p50).padStart(7)} ${String(r.p99).padStart(7)} ${r.cpuPerReq.toFixed(0).padStart(11)}  ${median(
        perRound(r, base, 'rps'),
      )
        .toFixed(2)
        .padStart(6)}  ${median(cpuRatios).toFixed(2).padStart(4)}  ${range}`,
    );
  }
}

export function header(what) {
  console.log(
    `${what}: autocannon, ${connections} connections, ${warmup} s warm-up per target, ${rounds} interleaved rounds of ${duration} s, Node ${process.version}, ${cpus} CPUs (servers pinned to CPU ${SERVER_CPU ?? 'any'})`,
  );
}

/** Stops every child on exit, whatever happens. */
export function cleanupOnExit(children) {
  const stop = () => {
    for (const c of children) c.child?.kill('SIGTERM');
  };
  process.on('exit', stop);
  process.on('SIGINT', () => {
    stop();
    process.exit(130);
  });
}

/**
 * A fresh data folder and the list of started servers (push each one onto `children`): `stop()` stops them and
 * removes the folder, and the servers are stopped on exit and on Ctrl-C whatever happens.
 */
export function benchScratch() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kasir-bench-'));
  const children = [];
  cleanupOnExit(children);
  return {
    dataDir,
    children,
    /**
     * Stops the servers and removes the folder. A bench is over when its figures are printed: should a handle (a
     * pool's socket, a child's pipe) keep this process alive after that, it ends 10 s later with its exit code, so CI
     * never waits on one. (An unref'd timer: it does not itself keep the process alive.)
     */
    stop() {
      for (const c of children) c.child.kill('SIGTERM');
      rmSync(dataDir, { recursive: true, force: true });
      setTimeout(() => process.exit(process.exitCode ?? 0), 10_000).unref();
    },
  };
}

/** Starts the built kasir, pinned, on a free local port with its own data folder and no rate limit (`env` on top). */
export function startKasir(dataDir, env = {}, name = 'kasir') {
  return startNode(name, kasirArgs(), {
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    RATE_LIMIT_PER_MINUTE: '0',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    ...env,
  });
}

/** Starts the built kasir beside a bare Hono hello-world; both pinned. */
export async function startKasirAndBareHono(dataDir, env = {}) {
  const hello = await startNode('bare hono', ['bench/lib/bare-hono.mjs']);
  const kasir = await startKasir(dataDir, env);
  return { hello, kasir };
}
