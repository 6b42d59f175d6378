// Reserve + charge throughput of the prepaid books on SQLite and PostgreSQL, measured in this process: one
// database hold and capture per call (capped keys, or PREPAID_LEASE_MICRO_USD=0), and calls served from a
// balance lease (the default), whose charges are written batched with their usage rows: without the charge
// journal, and with it (as the server runs: each charge's journal line is written before its answer leaves); on
// PostgreSQL also with the journal as rows there (what a shared database runs: each answer waits for its row's
// group commit) beside the file journal it replaced.
import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { scratchDatabase } from './pg-database.mjs';

const SECONDS = Number(process.env.BENCH_LEDGER_SECONDS ?? 3);

async function rate(call, inFlight) {
  let done = 0;
  const until = performance.now() + SECONDS * 1000;
  const worker = async () => {
    while (performance.now() < until) {
      await call();
      done++;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return done / SECONDS;
}

const usage = (accountId) => ({
  created_at: new Date().toISOString(),
  request_id: 'bench',
  rail: 'prepaid',
  account_id: accountId,
  key_id: null,
  payer: null,
  offer_id: 'bench',
  quote_micro_usd: 1000,
  charged_micro_usd: 1000,
  status: 'charged',
  http_status: 200,
  latency_ms: 1,
  error_code: null,
});

function perCallHold(books, db, accountId) {
  return async () => {
    const hold = await books.placeHold(db, {
      accountId,
      keyId: null,
      keySpendCapped: false,
      amountMicroUsd: 1000,
      offerId: 'bench',
      requestId: 'bench',
      ttlSeconds: 600,
    });
    await books.captureHold(db, hold.holdId, usage(accountId));
  };
}

function leased(reserves, accountId) {
  const call = { keyId: null, offerId: 'bench', requestId: 'bench' };
  return async () => {
    const r = await reserves.reserve(accountId, 1000, call);
    await (await r.capture(usage(accountId))).commit();
  };
}

async function measure(root, target) {
  const { openDb } = await import(path.join(root, 'dist/store/db.js'));
  const books = await import(path.join(root, 'dist/ledger/books.js'));
  const { createAccount } = await import(path.join(root, 'dist/ledger/accounts.js'));
  const { Reserves } = await import(path.join(root, 'dist/ledger/reserves.js'));
  const { ChargeJournal } = await import(path.join(root, 'dist/ledger/charge-journal.js'));
  const db = await openDb(target, { poolSize: 16 });
  const options = { maxMicroUsd: 1_000_000, idleMs: 2000, ttlSeconds: 600 };
  const reserves = new Reserves(db, options);
  const journalDir = mkdtempSync(path.join(root, '.bench-journal-'));
  const journal = ChargeJournal.open(journalDir);
  const journalled = new Reserves(db, { ...options, journal });
  const rows =
    db.kind === 'postgres'
      ? await (await import(path.join(root, 'dist/ledger/pg-journal.js'))).PgChargeJournal.open(db.pool, {
          host: 'bench',
          pid: process.pid,
          nonce: Date.now().toString(36),
        })
      : null;
  const rowJournalled = rows ? new Reserves(db, { ...options, journal: rows }) : null;
  try {
    const account = await createAccount(db);
    await books.adjustBalance(db, {
      accountId: account.id,
      kind: 'credit',
      amountMicroUsd: 1e12,
      reason: 'bench',
      idempotencyKey: 'bench',
    });
    const lines = [];
    for (const [name, call] of [
      ['hold + capture', perCallHold(books, db, account.id)],
      ['leased', leased(reserves, account.id)],
      ['leased, journal', leased(journalled, account.id)],
      ...(rowJournalled ? [['leased, PG journal', leased(rowJournalled, account.id)]] : []),
    ]) {
      const serial = await rate(call, 1);
      const parallel = await rate(call, 16);
      lines.push(
        `${target.kind.padEnd(9)} ${name.padEnd(18)} ${serial.toFixed(0).padStart(6)}/s one at a time, ${parallel.toFixed(0).padStart(6)}/s with 16 in flight`,
      );
    }
    return lines;
  } finally {
    await reserves.close();
    await journalled.close();
    journal.close();
    await rowJournalled?.close();
    await rows?.close();
    rmSync(journalDir, { recursive: true, force: true });
    await db.close();
  }
}

export async function holdCaptureRate(root, dataDir) {
  const lines = await measure(root, { kind: 'sqlite', file: path.join(dataDir, 'ledger-bench.db') });
  let scratch;
  try {
    scratch = await scratchDatabase('kasir_bench');
  } catch (err) {
    lines.push(`postgres  skipped: ${err.message}`);
    return lines;
  }
  try {
    lines.push(...(await measure(root, { kind: 'postgres', url: scratch.url })));
  } finally {
    await scratch.drop();
  }
  return lines;
}
