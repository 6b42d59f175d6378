// What every drill shares: built kasir instances (`dist/main.js`) on a fresh database, `kill -9` of one of them, its
// restart on its own data folder or (`replace`) on a new, empty one, and the drill's scratch folder and clean-up.
// Each rail's drill (prepaid.mjs, x402.mjs, …) drives its own load and keeps its own books on top of this;
// crash-drill.mjs runs them.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The URL of a compiled module (`dist/<file>`), to import. */
export const dist = (file) => pathToFileURL(path.join(root, 'dist', file)).href;
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** An integer in [lo, hi). */
export const between = (lo, hi) => lo + Math.floor(Math.random() * (hi - lo));

/** Starts `node <args>` from the repository root; resolves once it prints "listening on <url>". */
export function startNode(args, env) {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk) => {
      seen += chunk;
      const m = /listening on (http:\/\/[^\s]+:\d+)/.exec(seen);
      if (m) {
        child.stderr.off('data', onData);
        // Kept for a round that does not balance: what the instance logged (warnings and errors, as JSON lines).
        const logged = seen.split('\n');
        child.stderr.on('data', (more) => logged.push(...String(more).split('\n')));
        resolve({ child, url: m[1], logged });
      }
    };
    child.stderr.on('data', onData);
    child.once('exit', (code, signal) =>
      reject(new Error(`${args.join(' ')} exited (${code ?? signal}): ${seen}`)),
    );
  });
}

/** Resolves once `child` has exited (at once if it already has). */
export const exited = (child) =>
  new Promise((r) => (child.exitCode !== null || child.signalCode ? r() : child.once('exit', r)));

/** Creates the drill's database (a fresh PostgreSQL database, or a SQLite file) and returns its URL and cleanup. */
export async function createDatabase(kind, dir) {
  if (kind === 'sqlite') return { url: `sqlite:${path.join(dir, 'kasir.db')}`, drop: async () => {} };
  const adminUrl = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `kasir_drill_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** Opens the drill's database with kasir's own code (for seeding and for reading the books). */
export async function openDrillDb(databaseUrl) {
  const { loadConfig } = await import(dist('config/load.js'));
  const { openDb } = await import(dist('store/db.js'));
  return openDb(loadConfig({ DATABASE_URL: databaseUrl, DATA_DIR: tmpdir() }).database);
}

/** The drill's child processes: once stopped, one started late (a restart still under way) is killed at once. */
class Children extends Set {
  stopped = false;

  add(child) {
    if (this.stopped) child.kill('SIGKILL');
    return super.add(child);
  }

  stopAll = () => {
    this.stopped = true;
    for (const c of this) c.kill('SIGKILL');
  };
}

/**
 * A drill's scratch space: a temporary folder, a database in it or on the PostgreSQL server, and every child process
 * the drill starts, all removed (the children killed) when `body` ends, however it ends. With `signal` (a test's,
 * aborted when it times out; may be undefined) the drill also ends, rejected, as soon as it aborts: its processes
 * are stopped then, rather than left running into the rest of the suite while `body` waits on them.
 */
export async function withDrill(kind, signal, body) {
  if (!existsSync(path.join(root, 'dist/main.js'))) throw new Error('run `npm run build` first');
  const dir = mkdtempSync(path.join(tmpdir(), 'kasir-drill-'));
  const children = new Children();
  const cleanups = [];
  const atEnd = (fn) => {
    if (children.stopped) fn().catch(() => {});
    else cleanups.unshift(fn);
  };
  process.once('exit', children.stopAll);
  let database;
  try {
    database = await createDatabase(kind, dir);
    return await abandonedOn(signal, body({ dir, database, children, atEnd }));
  } finally {
    children.stopAll();
    process.off('exit', children.stopAll);
    for (const fn of cleanups) await fn().catch(() => {});
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `run`, or a rejection as soon as `signal` aborts; `run`'s own failure after that (its processes gone) is unheard. */
function abandonedOn(signal, run) {
  if (!signal) return run;
  run.catch(() => {});
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    run.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Starts the fake OpenAI upstream (bench/lib/fake-openai.mjs) as one of the drill's children. */
export async function fakeOpenAi(space, env = {}) {
  const upstream = await startNode(['bench/lib/fake-openai.mjs'], { BENCH_EVENT_DELAY_MS: '2', ...env });
  space.children.add(upstream.child);
  return upstream;
}

/**
 * The devnet's Tempo chain (anvil in Tempo mode, with the TIP-1034 escrow) and the fake OpenAI upstream, started as
 * part of the drill's space; `chargeEnv` is kasir's MPP Tempo charge settings for that chain.
 */
export async function tempoDrill(space) {
  const { startTempoDevnet } = await import(dist('devnet/tempo.js'));
  const { tempoChargeEnv } = await import(dist('devnet/command.js'));
  const chain = await startTempoDevnet();
  space.atEnd(() => chain.stop());
  const upstream = await fakeOpenAi(space);
  return { chain, upstream, chargeEnv: tempoChargeEnv(chain) };
}

/**
 * `count` kasir instances on the drill's database, each on its own data folder, with `env(i)` on top of the drill's
 * defaults. `kill(i)` is `kill -9`; `restart(i)` brings it back on its folder, or with `replace` on a new, empty one
 * (as a container platform does), where it replays the dead one's journal rows before it listens.
 */
export async function startCluster(space, { count, env = () => ({}) }) {
  const dataDirs = Array.from({ length: count }, (_, i) => path.join(space.dir, `instance-${i}`));
  const logs = [];
  const instances = [];
  let generation = 0;
  const start = async (i) => {
    const instance = await startNode(['--max-old-space-size=1024', 'dist/main.js'], {
      HOST: '127.0.0.1',
      PORT: '0',
      // One address for the whole cluster, as behind a load balancer (see the README's "Run N instances"): the links
      // and challenges one instance hands out are the others' too.
      PUBLIC_BASE_URL: 'http://kasir-cluster.test',
      DATA_DIR: dataDirs[i],
      DATABASE_URL: space.database.url,
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'warn',
      SWEEP_INTERVAL_SECONDS: '0',
      ...env(i),
    });
    instance.name = `instance ${i}`;
    space.children.add(instance.child);
    logs.push(instance.logged);
    return instance;
  };
  for (let i = 0; i < count; i++) instances.push(await start(i));
  return {
    instances,
    dataDirs,
    logs,
    /** `kill -9` of instance `i`; resolves once it is gone. */
    async kill(i) {
      const dead = instances[i];
      dead.child.kill('SIGKILL');
      await exited(dead.child);
      space.children.delete(dead.child);
      return dead;
    },
    /** Starts instance `i` again: on its own data folder, or with `replace` on a new, empty one. */
    async restart(i, { replace = false } = {}) {
      if (replace) dataDirs[i] = path.join(space.dir, `instance-${i}-${++generation}`);
      instances[i] = await start(i);
      return instances[i];
    },
    /** Stops every instance with SIGTERM (a graceful shutdown: leases go back, pending charges are written). */
    async stop() {
      for (const inst of instances) {
        inst.child.kill('SIGTERM');
        await exited(inst.child);
        space.children.delete(inst.child);
      }
    },
  };
}

/** The value of `--name` on the command line, or `fallback`. */
export function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

/** Whether `url` (an `import.meta.url`) is the script node was started with. */
export const isMain = (url) =>
  Boolean(process.argv[1]) && path.resolve(process.argv[1]) === fileURLToPath(url);

/** Prints a drill's rounds as a table: the round and the instance killed in it, then `columns`. */
export function printRounds(title, rows, columns) {
  printTable(title, rows, [['round', (r) => r.round], ['killed', (r) => r.killed], ...columns]);
}

/** Prints `rows` as a table with `columns` ([header, row => value]). */
export function printTable(title, rows, columns) {
  console.log(`\n${title}`);
  const cells = rows.map((r) => columns.map(([, f]) => String(f(r))));
  const widths = columns.map(([h], c) => Math.max(h.length, ...cells.map((row) => row[c].length)));
  console.log(columns.map(([h], c) => h.padStart(widths[c])).join('  '));
  for (const row of cells) console.log(row.map((v, c) => v.padStart(widths[c])).join('  '));
}
