// The crash drill: paid calls under load on built kasir instances, `kill -9` of one of them at a random moment,
// a restart on the same data folder, then a comparison of what callers received with what the ledger charged.
// Every round, every answer delivered (status 200, body complete, a receipt in it) must be charged, and the
// balances must have fallen by exactly what the charges cost. A call charged without its answer delivered is
// allowed only as what the kill can catch between its journal record and the write of its last bytes (see "Balance
// leases" in the README): on SQLite's file journal one call per kill (one synchronous stretch of code), on PostgreSQL's
// journal rows the calls of one group commit (at most the killed instance's calls in flight); always on the killed
// instance, and reported (`killWindow`). `--replace` brings the killed instance back on a new, empty data folder.
//
//   npm run build && node test/drills/crash-drill.mjs                      # PostgreSQL, two instances, 5 rounds
//   node test/drills/crash-drill.mjs --db sqlite --rounds 3                 # SQLite, one instance
//   node test/drills/crash-drill.mjs --replace                              # replaced on an empty data folder
//   (env TEST_POSTGRES_URL: the PostgreSQL server to create the drill's database on)
//
// Exits non-zero when any round does not balance. test/drills/crash-drill.test.ts runs a short version in CI.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { Agent, request } from 'undici';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = (file) => pathToFileURL(path.join(root, 'dist', file)).href;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const between = (lo, hi) => lo + Math.floor(Math.random() * (hi - lo));

const FUNDS = 1_000_000_000;
const MODEL = 'openai/gpt-4.1-mini';

/** Starts `node <args>` from the repository root; resolves once it prints "listening on <url>". */
function startNode(args, env) {
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

function kasirArgs() {
  return ['--max-old-space-size=1024', 'dist/main.js'];
}

/** Creates the drill's database (a fresh PostgreSQL database, or a SQLite file) and returns its URL and cleanup. */
async function createDatabase(kind, dir) {
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

/** Funded accounts and their keys: plain keys (served from balance leases) and one spend-capped key (a hold per call). */
async function seed(databaseUrl) {
  const { loadConfig } = await import(dist('config/load.js'));
  const { openDb } = await import(dist('store/db.js'));
  const { createAccount, issueKey } = await import(dist('ledger/accounts.js'));
  const { adjustBalance } = await import(dist('ledger/books.js'));
  const config = loadConfig({ DATABASE_URL: databaseUrl, DATA_DIR: tmpdir() });
  const db = await openDb(config.database);
  const keys = [];
  for (let i = 0; i < 4; i++) {
    const account = await createAccount(db, { label: `drill ${i}` });
    await adjustBalance(db, {
      accountId: account.id,
      kind: 'credit',
      amountMicroUsd: FUNDS,
      reason: 'drill',
      idempotencyKey: 'drill',
    });
    const capped = i === 3;
    const issued = await issueKey(db, account.id, { spendCapMicroUsd: capped ? FUNDS : null });
    keys.push({ accountId: account.id, key: issued.key, capped });
  }
  return { db, keys };
}

/** What the ledger charged the drill's accounts: the receipt ids of call charges, and the balances. */
async function ledgerState(db, accountIds) {
  const entries = await db.kysely
    .selectFrom('ledger_entries')
    .select(['idempotency_key', 'amount_micro_usd'])
    .where('account_id', 'in', accountIds)
    .where('kind', 'in', ['capture', 'debit'])
    .execute();
  const charged = new Map();
  for (const e of entries) {
    // capture:<charge or hold id> (a call's charge), debit:<account>:replay:<id> (a late one); a lease's
    // capture moves no balance of its own (its calls' entries do).
    const id = e.idempotency_key.startsWith('capture:')
      ? e.idempotency_key.slice('capture:'.length)
      : /^debit:[^:]+:replay:(.+)$/.exec(e.idempotency_key)?.[1];
    if (id && e.amount_micro_usd < 0) charged.set(id, -e.amount_micro_usd);
  }
  const accounts = await db.kysely
    .selectFrom('accounts')
    .select(['balance_micro_usd'])
    .where('id', 'in', accountIds)
    .execute();
  const spent = accounts.reduce((sum, a) => sum + (FUNDS - a.balance_micro_usd), 0);
  return { charged, spent };
}

/**
 * For a round that does not balance: the calls charged but not seen delivered (with what the client saw of them),
 * the calls delivered but not charged (with their usage rows, if any), and what the instances logged.
 */
async function explain(db, seen, charged, logs, journalCopy) {
  const journalled = readdirSync(journalCopy)
    .map((name) => readFileSync(path.join(journalCopy, name), 'utf8'))
    .join('\n')
    .split('\n');
  const rows = await db.kysely
    .selectFrom('usage_records')
    .select(['request_id', 'status', 'http_status', 'error_code', 'created_at'])
    .execute();
  const usageOf = new Map(rows.map((r) => [r.request_id, r]));
  const notDelivered = rows
    .filter((r) => r.status === 'charged' && !seen.get(r.request_id)?.delivered)
    .map((r) => ({ ...r, client: seen.get(r.request_id) ?? 'never sent by the drill' }));
  const notCharged = [...seen]
    .filter(([, o]) => o.delivered && !charged.has(o.receipt))
    .map(([requestId, o]) => ({
      requestId,
      ...o,
      usage: usageOf.get(requestId) ?? null,
      // In the dead instance's journal: the replay missed it; not there: the instance died before recording it.
      journalLines: journalled.filter((l) => l.includes(o.receipt)),
    }));
  return { notDelivered, notCharged, logged: logs.flat().filter((l) => l.trim() !== '') };
}

/**
 * The calls charged but not delivered that a kill caught between their journal line and their last write: sent to
 * the killed instance, cut off there (a socket error, not a refusal), not counted before.
 */
async function killWindow(db, seen, victim, counted) {
  const rows = await db.kysely
    .selectFrom('usage_records')
    .select(['request_id'])
    .where('status', '=', 'charged')
    .where('request_id', 'like', 'drill-%')
    .execute();
  return rows
    .map((r) => r.request_id)
    .filter((id) => {
      const o = seen.get(id);
      return o && !o.delivered && o.instance === victim && o.error !== null && !counted.includes(id);
    });
}

/** The receipt of a complete 200 answer: its id and cost, or null when the answer did not arrive whole. */
function receiptOf(text, streamed) {
  if (streamed) {
    if (!text.trimEnd().endsWith('data: [DONE]')) return null;
    const frames = text.split('\n\n').filter((f) => f.startsWith('data: {'));
    const last = JSON.parse(frames.at(-1).slice(6));
    return last.receipt ? { id: last.receipt.receipt_id, cost: last.costMicroUsd } : null;
  }
  const body = JSON.parse(text);
  return body.receipt ? { id: body.receipt.receipt_id, cost: body.costMicroUsd } : null;
}

/** Asks an instance for a balance, which it answers only once every charge it has taken is written. */
async function flushed(instance, key) {
  const res = await request(`${instance.url}/v1/keys/balance`, {
    headers: { authorization: `Bearer ${key}` },
  });
  await res.body.dump();
  if (res.statusCode !== 200) throw new Error(`balance read answered ${res.statusCode}`);
}

/** Sends paid calls to one instance from `connections` loops until stopped; records every delivered answer. */
function loadOn(instance, keys, connections, delivered, stats, seen, name) {
  let running = true;
  const dispatcher = new Agent({ connections, keepAliveTimeout: 10_000 });
  const loop = async () => {
    while (running) {
      const { key } = keys[between(0, keys.length)];
      const streamed = Math.random() < 0.3;
      const body = JSON.stringify({
        model: MODEL,
        messages: [{ role: 'user', content: `drill ${Math.random()}` }],
        max_tokens: between(16, 256),
        ...(streamed ? { stream: true } : {}),
      });
      // Named, so that a call charged but not delivered can be told apart afterwards (see `explain`).
      const requestId = `drill-${++stats.sent}`;
      const outcome = { instance: name, streamed, status: 0, bytes: 0, error: null, delivered: false };
      seen.set(requestId, outcome);
      try {
        const res = await request(`${instance.url}/v1/chat/completions`, {
          method: 'POST',
          body,
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${key}`,
            'x-request-id': requestId,
          },
          dispatcher,
        });
        outcome.status = res.statusCode;
        const chunks = [];
        try {
          for await (const chunk of res.body) {
            chunks.push(chunk);
            outcome.bytes += chunk.length;
          }
        } catch (err) {
          outcome.tail = Buffer.concat(chunks).toString('utf8').slice(-160);
          throw err;
        }
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode !== 200) {
          stats.refused++;
          continue;
        }
        const receipt = receiptOf(text, streamed);
        if (receipt) delivered.set(receipt.id, receipt.cost);
        outcome.delivered = receipt !== null;
        outcome.receipt = receipt?.id ?? null;
      } catch (err) {
        // The instance died under the call (or is down): nothing was delivered.
        outcome.error = String(err?.code ?? err?.message ?? err);
        stats.failed++;
        await sleep(10);
      }
    }
  };
  const loops = Array.from({ length: connections }, loop);
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
      await dispatcher.close();
    },
  };
}

/**
 * Runs the drill and returns one row per round; `rows.every(r => r.equal)` is the verdict.
 * db: 'postgres' (two instances, one killed each round) or 'sqlite' (one instance, killed and restarted).
 * replace: the killed instance comes back on a new, empty data folder (PostgreSQL: its journal rows are there).
 */
export async function runCrashDrill({
  db: kind = 'postgres',
  rounds = 5,
  connections = 12,
  replace = false,
  log = (line) => console.error(line),
} = {}) {
  if (!existsSync(path.join(root, 'dist/main.js'))) throw new Error('run `npm run build` first');
  const dir = mkdtempSync(path.join(tmpdir(), 'kasir-drill-'));
  const database = await createDatabase(kind, dir);
  const children = new Set();
  const stopAll = () => {
    for (const c of children) c.kill('SIGKILL');
  };
  process.once('exit', stopAll);
  let seeded;
  try {
    const upstream = await startNode(['bench/lib/fake-openai.mjs'], { BENCH_EVENT_DELAY_MS: '2' });
    children.add(upstream.child);
    seeded = await seed(database.url);
    const accountIds = seeded.keys.map((k) => k.accountId);
    const count = kind === 'sqlite' ? 1 : 2;
    // What one kill may catch between a charge's journal record and its answer's last bytes: one call with the file
    // journal (one synchronous stretch), the calls of one group commit with the journal in PostgreSQL (at most every
    // call in flight on the killed instance).
    const windowLimit = kind === 'postgres' ? connections : 1;
    const dataDirs = Array.from({ length: count }, (_, i) => path.join(dir, `instance-${i}`));
    const env = (i) => ({
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: dataDirs[i],
      DATABASE_URL: database.url,
      OPENAI_API_KEY: 'sk-drill',
      OPENAI_BASE_URL: `${upstream.url}/v1`,
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'warn',
      SWEEP_INTERVAL_SECONDS: '0',
    });
    const logs = [];
    const start = async (i) => {
      const instance = await startNode(kasirArgs(), env(i));
      children.add(instance.child);
      logs.push(instance.logged);
      return instance;
    };
    const instances = [];
    for (let i = 0; i < count; i++) instances.push(await start(i));

    const delivered = new Map();
    const stats = { sent: 0, refused: 0, failed: 0 };
    const seen = new Map();
    const rows = [];
    const killed = []; // calls charged in a kill window so far
    for (let round = 1; round <= rounds; round++) {
      const loads = instances.map((inst, i) =>
        loadOn(inst, seeded.keys, connections, delivered, stats, seen, `instance ${i}`),
      );
      await sleep(between(400, 1500));
      const victim = between(0, count);
      const dead = instances[victim];
      dead.child.kill('SIGKILL');
      await new Promise((r) =>
        dead.child.exitCode !== null || dead.child.signalCode ? r() : dead.child.once('exit', r),
      );
      children.delete(dead.child);
      await loads[victim].stop();
      await sleep(between(100, 500)); // the other instance keeps serving
      // The dead instance's journal as it left it, for a round that does not balance (see `explain`).
      const journalCopy = path.join(dir, `journal-round-${round}`);
      const journalDir = path.join(dataDirs[victim], 'journal');
      if (existsSync(journalDir)) cpSync(journalDir, journalCopy, { recursive: true });
      // Restarted on its own folder, or with `replace`, as a container platform does: on a new, empty one. Either
      // way it replays the dead one's journal (the file, or its rows in PostgreSQL) before it listens.
      if (replace) dataDirs[victim] = path.join(dir, `instance-${victim}-round-${round}`);
      instances[victim] = await start(victim);
      loads[victim] = loadOn(
        instances[victim],
        seeded.keys,
        connections,
        delivered,
        stats,
        seen,
        `instance ${victim}`,
      );
      await sleep(between(200, 600));
      await Promise.all(loads.map((l) => l.stop()));
      // Each live instance writes what it has queued before it answers a balance read (however busy the machine).
      for (const inst of instances) await flushed(inst, seeded.keys[0].key);
      const ledger = await ledgerState(seeded.db, accountIds);
      const missing = [...delivered.keys()].filter((id) => !ledger.charged.has(id));
      const extra = [...ledger.charged.keys()].filter((id) => !delivered.has(id));
      const sum = (ids) => ids.reduce((a, id) => a + ledger.charged.get(id), 0);
      const deliveredCost = [...delivered.values()].reduce((a, b) => a + b, 0);
      // Charged, not delivered: only the killed instance's call caught in its kill window (see the header).
      const window =
        extra.length === 0 ? [] : await killWindow(seeded.db, seen, `instance ${victim}`, killed);
      killed.push(...window);
      const row = {
        round,
        killed: `instance ${victim}`,
        delivered: delivered.size,
        charged: ledger.charged.size,
        uncharged: missing.length,
        undelivered: extra.length,
        killWindow: killed.length,
        deliveredMicroUsd: deliveredCost,
        spentMicroUsd: ledger.spent,
        equal:
          missing.length === 0 &&
          extra.length === killed.length &&
          window.length <= windowLimit &&
          deliveredCost + sum(extra) === ledger.spent,
      };
      if (!row.equal) row.unexplained = await explain(seeded.db, seen, ledger.charged, logs, journalCopy);
      rows.push(row);
      log(
        `round ${round}: killed ${row.killed}; delivered ${row.delivered}, charged ${row.charged}, ` +
          `delivered-not-charged ${row.uncharged}, charged-not-delivered ${row.undelivered} ` +
          `(in a kill window: ${row.killWindow}), ` +
          `balances fell ${row.spentMicroUsd} for ${row.deliveredMicroUsd} delivered: ${row.equal ? 'equal' : 'NOT EQUAL'}`,
      );
      if (window.length) log(`kill window: ${JSON.stringify(window.map((id) => ({ id, ...seen.get(id) })))}`);
      if (row.unexplained) log(`not balanced: ${JSON.stringify(row.unexplained)}`);
    }
    log(`calls refused ${stats.refused}, failed in flight ${stats.failed}`);
    for (const inst of instances) {
      inst.child.kill('SIGTERM');
      await new Promise((r) => (inst.child.exitCode !== null ? r() : inst.child.once('exit', r)));
      children.delete(inst.child);
    }
    return rows;
  } finally {
    stopAll();
    process.off('exit', stopAll);
    await seeded?.db.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name, fallback) => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? process.argv[i + 1] : fallback;
  };
  const kind = arg('db', 'postgres');
  const rows = await runCrashDrill({
    db: kind,
    rounds: Number(arg('rounds', 5)),
    connections: Number(arg('connections', 12)),
    replace: process.argv.includes('--replace'),
  });
  console.log(`\ncrash drill on ${kind}: ${rows.length} rounds`);
  console.log(
    'round  killed       delivered  charged  delivered-not-charged  charged-not-delivered  spent = delivered cost',
  );
  for (const r of rows)
    console.log(
      `${String(r.round).padStart(5)}  ${r.killed.padEnd(11)}  ${String(r.delivered).padStart(9)}  ${String(r.charged).padStart(7)}  ${String(r.uncharged).padStart(21)}  ${String(r.undelivered).padStart(21)}  ${r.equal ? 'yes' : 'NO'} (${r.spentMicroUsd} / ${r.deliveredMicroUsd})`,
    );
  process.exitCode = rows.every((r) => r.equal) ? 0 : 1;
}
