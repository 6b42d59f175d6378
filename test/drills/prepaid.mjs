// The prepaid drill: paid calls with prepaid keys under load on built kasir instances, `kill -9` of one of them at a
// random moment, a restart on the same data folder, then a comparison of what callers received with what the ledger
// charged. Every round, every answer delivered (status 200, body complete, a receipt in it) must be charged, and the
// balances must have fallen by exactly what the charges cost. A call charged without its answer delivered is
// allowed only as what the kill can catch between its journal record and the write of its last bytes (see "Balance
// leases" in the README): on SQLite's file journal one call per kill (one synchronous stretch of code), on PostgreSQL's
// journal rows the calls of one group commit (at most the killed instance's calls in flight); always on the killed
// instance, and reported (`killWindow`). `--replace` brings the killed instance back on a new, empty data folder.
//
//   npm run build && node test/drills/prepaid.mjs                          # PostgreSQL, two instances, 5 rounds
//   node test/drills/prepaid.mjs --db sqlite --rounds 3                     # SQLite, one instance
//   node test/drills/prepaid.mjs --replace                                  # replaced on an empty data folder
//   (env TEST_POSTGRES_URL: the PostgreSQL server to create the drill's database on)
//
// Exits non-zero when any round does not balance. crash-drill.mjs runs it with the other rails' drills.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Agent, request } from 'undici';
import {
  arg,
  between,
  dist,
  exited,
  fakeOpenAi,
  isMain,
  openDrillDb,
  printRounds,
  printTable,
  sleep,
  startCluster,
  withDrill,
} from './harness.mjs';

const FUNDS = 1_000_000_000;
const MODEL = 'openai/gpt-4.1-mini';

/** Funded accounts and their keys: plain keys (served from balance leases) and one spend-capped key (a hold per call). */
async function seed(databaseUrl) {
  const { createAccount, issueKey } = await import(dist('ledger/accounts.js'));
  const { adjustBalance } = await import(dist('ledger/books.js'));
  const db = await openDrillDb(databaseUrl);
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
        if (res.headers['ratelimit-limit'] !== undefined) stats.limited++;
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
 * chaos: 'instance' (the above), or 'redis': the instances share a Redis of the drill's own for their rate limits,
 * and it is the Redis that is killed (`kill -9`) and started again mid-load each round, the instances left alone.
 * Then no call may fail or be refused (the limits degrade to none while Redis is away), every answer is charged, and
 * nothing else; the limits must count again once Redis is back.
 */
export function runPrepaidDrill({
  db: kind = 'postgres',
  rounds = 5,
  connections = 12,
  replace = false,
  chaos = 'instance',
  log = (line) => console.error(line),
  /** A test's signal: the drill stops its processes and rejects when it aborts (see withDrill). */
  signal,
} = {}) {
  const rail = chaos === 'redis' ? 'redis' : 'prepaid';
  return withDrill(kind, signal, async (space) => {
    const upstream = await fakeOpenAi(space);
    const redis = chaos === 'redis' ? await startRedis(space) : null;
    const seeded = await seed(space.database.url);
    space.atEnd(() => seeded.db.close());
    const accountIds = seeded.keys.map((k) => k.accountId);
    const count = kind === 'sqlite' ? 1 : 2;
    // What one kill may catch between a charge's journal record and its answer's last bytes: one call with the file
    // journal (one synchronous stretch), the calls of one group commit with the journal in PostgreSQL (at most every
    // call in flight on the killed instance).
    const windowLimit = kind === 'postgres' ? connections : 1;
    const cluster = await startCluster(space, {
      count,
      env: () => ({
        OPENAI_API_KEY: 'sk-drill',
        OPENAI_BASE_URL: `${upstream.url}/v1`,
        ...(redis ? { REDIS_URL: redis.url, RATE_LIMIT_PER_MINUTE: '100000000' } : {}),
      }),
    });
    const { instances, dataDirs, logs } = cluster;

    const delivered = new Map();
    const stats = { sent: 0, refused: 0, failed: 0, limited: 0 };
    const seen = new Map();
    const rows = [];
    const killed = []; // calls charged in a kill window so far
    for (let round = 1; round <= rounds; round++) {
      const loads = instances.map((inst) =>
        loadOn(inst, seeded.keys, connections, delivered, stats, seen, inst.name),
      );
      await sleep(between(400, 1500));
      if (redis) {
        // Redis dies under load and comes back a moment later, empty; the instances keep serving.
        const before = { ...stats };
        await redis.kill();
        await sleep(between(500, 1500));
        const whileDown = { ...stats };
        await redis.start();
        await sleep(between(500, 1000));
        const limitedBefore = stats.limited;
        await sleep(300);
        await Promise.all(loads.map((l) => l.stop()));
        for (const inst of instances) await flushed(inst, seeded.keys[0].key);
        const ledger = await ledgerState(seeded.db, accountIds);
        const missing = [...delivered.keys()].filter((id) => !ledger.charged.has(id));
        const extra = [...ledger.charged.keys()].filter((id) => !delivered.has(id));
        const deliveredCost = [...delivered.values()].reduce((a, b) => a + b, 0);
        const row = {
          rail,
          round,
          killed: 'redis',
          delivered: delivered.size,
          charged: ledger.charged.size,
          uncharged: missing.length,
          undelivered: extra.length,
          killWindow: 0,
          refused: stats.refused - before.refused,
          failed: stats.failed - before.failed,
          servedWhileDown: whileDown.sent - before.sent,
          limitedAgain: stats.limited > limitedBefore,
          deliveredMicroUsd: deliveredCost,
          spentMicroUsd: ledger.spent,
        };
        row.equal =
          missing.length === 0 &&
          extra.length === 0 &&
          row.refused === 0 &&
          row.failed === 0 &&
          row.limitedAgain &&
          deliveredCost === ledger.spent;
        if (!row.equal)
          row.unexplained = {
            logged: logs
              .flat()
              .filter((l) => l.trim() !== '')
              .slice(-40),
          };
        rows.push(row);
        log(
          `redis round ${round}: Redis killed and restarted; ${row.servedWhileDown} calls sent while it was down, ` +
            `refused ${row.refused}, failed ${row.failed}, limits counting again: ${row.limitedAgain}; delivered ` +
            `${row.delivered}, charged ${row.charged}, balances fell ${row.spentMicroUsd} for ${row.deliveredMicroUsd} ` +
            `delivered: ${row.equal ? 'equal' : 'NOT EQUAL'}`,
        );
        if (row.unexplained) log(`not balanced: ${JSON.stringify(row.unexplained)}`);
        continue;
      }
      const victim = between(0, count);
      await cluster.kill(victim);
      await loads[victim].stop();
      await sleep(between(100, 500)); // the other instance keeps serving
      // The dead instance's journal as it left it, for a round that does not balance (see `explain`).
      const journalCopy = path.join(space.dir, `journal-round-${round}`);
      const journalDir = path.join(dataDirs[victim], 'journal');
      if (existsSync(journalDir)) cpSync(journalDir, journalCopy, { recursive: true });
      // Restarted on its own folder, or with `replace`, as a container platform does: on a new, empty one. Either
      // way it replays the dead one's journal (the file, or its rows in PostgreSQL) before it listens.
      const back = await cluster.restart(victim, { replace });
      loads[victim] = loadOn(back, seeded.keys, connections, delivered, stats, seen, back.name);
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
        rail,
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
        `prepaid round ${round}: killed ${row.killed}; delivered ${row.delivered}, charged ${row.charged}, ` +
          `delivered-not-charged ${row.uncharged}, charged-not-delivered ${row.undelivered} ` +
          `(in a kill window: ${row.killWindow}), ` +
          `balances fell ${row.spentMicroUsd} for ${row.deliveredMicroUsd} delivered: ${row.equal ? 'equal' : 'NOT EQUAL'}`,
      );
      if (window.length) log(`kill window: ${JSON.stringify(window.map((id) => ({ id, ...seen.get(id) })))}`);
      if (row.unexplained) log(`not balanced: ${JSON.stringify(row.unexplained)}`);
    }
    log(`${rail}: calls refused ${stats.refused}, failed in flight ${stats.failed}`);
    await cluster.stop();
    return rows;
  });
}

/**
 * A Redis server of the drill's own (never the machine's usual one), on a free port, without persistence: `kill()` is
 * `kill -9`, `start()` brings it back on the same port, empty.
 */
async function startRedis(space) {
  const port = await new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address();
      probe.close(() => resolve(free));
    });
  });
  let child;
  const start = async () => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
      },
    );
    space.children.add(child);
    for (let i = 0; i < 100; i++) {
      const up = await new Promise((resolve) => {
        const socket = net.connect(port, '127.0.0.1', () => {
          socket.end();
          resolve(true);
        });
        socket.on('error', () => resolve(false));
      });
      if (up) return;
      await sleep(50);
    }
    throw new Error(`redis-server did not start on port ${port}`);
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    start,
    async kill() {
      child.kill('SIGKILL');
      await exited(child);
      space.children.delete(child);
    },
  };
}

/** The prepaid drill's rows as a table. */
export function printPrepaid(rows) {
  if (rows[0]?.rail === 'redis') {
    printTable(`redis: ${rows.length} rounds`, rows, [
      ['round', (r) => r.round],
      ['sent while down', (r) => r.servedWhileDown],
      ['refused', (r) => r.refused],
      ['failed', (r) => r.failed],
      ['limits back', (r) => (r.limitedAgain ? 'yes' : 'NO')],
      ['delivered', (r) => r.delivered],
      ['charged', (r) => r.charged],
      [
        'spent = delivered cost',
        (r) => `${r.equal ? 'yes' : 'NO'} (${r.spentMicroUsd} / ${r.deliveredMicroUsd})`,
      ],
    ]);
    return;
  }
  printRounds(`prepaid: ${rows.length} rounds`, rows, [
    ['delivered', (r) => r.delivered],
    ['charged', (r) => r.charged],
    ['delivered-not-charged', (r) => r.uncharged],
    ['charged-not-delivered', (r) => r.undelivered],
    [
      'spent = delivered cost',
      (r) => `${r.equal ? 'yes' : 'NO'} (${r.spentMicroUsd} / ${r.deliveredMicroUsd})`,
    ],
  ]);
}

if (isMain(import.meta.url)) {
  const rows = await runPrepaidDrill({
    db: arg('db', 'postgres'),
    rounds: Number(arg('rounds', 5)),
    connections: Number(arg('connections', 12)),
    replace: process.argv.includes('--replace'),
    chaos: arg('chaos', 'instance'),
  });
  printPrepaid(rows);
  process.exitCode = rows.every((r) => r.equal) ? 0 : 1;
}
