// Hold + capture throughput of the prepaid books on SQLite and PostgreSQL, measured in this process.
import path from 'node:path';
import pg from 'pg';

const SECONDS = Number(process.env.BENCH_LEDGER_SECONDS ?? 3);

async function rate(books, db, accountId, inFlight) {
  let done = 0;
  const until = performance.now() + SECONDS * 1000;
  const worker = async () => {
    while (performance.now() < until) {
      const hold = await books.placeHold(db, {
        accountId,
        keyId: null,
        keySpendCapped: false,
        amountMicroUsd: 1000,
        offerId: 'bench',
        requestId: 'bench',
        ttlSeconds: 600,
      });
      await books.captureHold(db, hold.holdId);
      done++;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return done / SECONDS;
}

async function measure(root, target) {
  const { openDb } = await import(path.join(root, 'dist/store/db.js'));
  const books = await import(path.join(root, 'dist/ledger/books.js'));
  const { createAccount } = await import(path.join(root, 'dist/ledger/accounts.js'));
  const db = await openDb(target, { poolSize: 16 });
  try {
    const account = await createAccount(db);
    await books.adjustBalance(db, {
      accountId: account.id,
      kind: 'credit',
      amountMicroUsd: 1e12,
      reason: 'bench',
      idempotencyKey: 'bench',
    });
    const serial = await rate(books, db, account.id, 1);
    const parallel = await rate(books, db, account.id, 16);
    return `${target.kind.padEnd(9)} ${serial.toFixed(0).padStart(6)}/s one at a time, ${parallel.toFixed(0).padStart(6)}/s with 16 in flight`;
  } finally {
    await db.close();
  }
}

export async function holdCaptureRate(root, dataDir) {
  const lines = [await measure(root, { kind: 'sqlite', file: path.join(dataDir, 'ledger-bench.db') })];
  const adminUrl = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `kasir_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  try {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
  } catch (err) {
    lines.push(`postgres  skipped: ${err.message}`);
    await admin.end().catch(() => {});
    return lines;
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  try {
    lines.push(await measure(root, { kind: 'postgres', url: url.toString() }));
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
  return lines;
}
