// Vouchers accepted per second on one payment channel, on SQLite and on PostgreSQL: each step takes a new, higher
// voucher (its EIP-712 signature checked) and reserves one call's price from it in the channel's locked row, with the
// call's hold row — the whole of the channel rail's per-call work before the call runs. Vouchers are signed
// beforehand. Then a call ending (its hold row deleted, the rest given back), and a metered stream's two steps: a
// voucher sent on its own (what POST /v1/channels/{id}/vouchers does after parsing), and the stream raising its hold
// by a tranche from the accepted voucher.
//
//   npm run build && node bench/channels.mjs        (BENCH_VOUCHERS: vouchers per database, default 2000)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Session } from 'mppx/tempo';
import pg from 'pg';
import { createClient, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { requireBuild, root } from './lib/harness.mjs';

requireBuild();
const dist = (file) => pathToFileURL(path.join(root, 'dist', file)).href;
const { openDb } = await import(dist('store/db.js'));
const { loadConfig } = await import(dist('config/load.js'));
const { acceptVoucher, registerChannel, spendFromChannel } = await import(dist('rails/channel/store.js'));
const { newChannelHold, raiseChannelHold, settleChannelCall } = await import(dist('rails/channel/holds.js'));
const N = Number(process.env.BENCH_VOUCHERS ?? 2000);
const ESCROW = '0x4d50500000000000000000000000000000000000';
const CHAIN_ID = 1337;
const ZERO = '0x0000000000000000000000000000000000000000';
const TOKEN = '0x20c0000000000000000000000000000000000000';
const PAYEE = privateKeyToAccount(generatePrivateKey()).address;
const PRICE = 250;

const account = privateKeyToAccount(generatePrivateKey());
const descriptor = {
  payer: account.address,
  payee: PAYEE,
  operator: ZERO,
  token: TOKEN,
  salt: `0x${'11'.repeat(32)}`,
  authorizedSigner: ZERO,
  expiringNonceHash: `0x${'ab'.repeat(32)}`,
};
const channelId = Session.Precompile.Channel.computeId({ ...descriptor, chainId: CHAIN_ID, escrow: ESCROW });
// The chain side as the rail sees it, with a deposit that covers every voucher.
const backend = {
  chainId: CHAIN_ID,
  escrow: ESCROW,
  idOf: () => channelId,
  state: async () => ({ deposit: BigInt(PRICE * N * 3), settled: 0n, closeRequestedAt: 0 }),
  close: async () => '0x',
};
const client = createClient({ transport: http('http://127.0.0.1:9') });
/** N vouchers, `PRICE` apart, the first at `from + PRICE`. */
async function signed(from) {
  const list = [];
  for (let i = 1; i <= N; i++) {
    const cumulative = BigInt(from + i * PRICE);
    const signature = await Session.Precompile.Voucher.signVoucher(
      client,
      account,
      { channelId, cumulativeAmount: cumulative },
      ESCROW,
      CHAIN_ID,
    );
    list.push({ channelId, cumulative, signature });
  }
  return list;
}
const vouchers = await signed(0);
// Sent on their own after the N calls and the voucher signed ahead for N more (below).
const alone = await signed(2 * N * PRICE);

async function run(name, databaseUrl) {
  const dir = mkdtempSync(path.join(tmpdir(), 'kasir-bench-'));
  const config = loadConfig({
    DATA_DIR: dir,
    DATABASE_URL: databaseUrl ?? `sqlite:${path.join(dir, 'k.db')}`,
  });
  const db = await openDb(config.database);
  await registerChannel(db, backend, descriptor, { payee: PAYEE, token: TOKEN });
  const hold = () => newChannelHold(channelId, config.holdTtlSeconds);
  const holds = [];
  let t = performance.now();
  for (const v of vouchers) {
    const h = hold();
    await spendFromChannel(db, backend, v, PRICE, h);
    holds.push(h);
  }
  const fresh = performance.now() - t;
  t = performance.now();
  for (const h of holds) await settleChannelCall(db, h, PRICE, true);
  const settled = performance.now() - t;
  // A caller that signs ahead: one voucher covering the next N calls, sent with each (a retry of the accepted one).
  const ahead = await Session.Precompile.Voucher.signVoucher(
    client,
    account,
    { channelId, cumulativeAmount: BigInt(2 * N * PRICE) },
    ESCROW,
    CHAIN_ID,
  );
  const big = { channelId, cumulative: BigInt(2 * N * PRICE), signature: ahead };
  await spendFromChannel(db, backend, big, PRICE, hold());
  t = performance.now();
  for (let i = 1; i < N; i++) await spendFromChannel(db, backend, big, PRICE, hold());
  const same = performance.now() - t;
  t = performance.now();
  for (const v of alone) await acceptVoucher(db, backend, v);
  const sent = performance.now() - t;
  // A metered stream raising its hold N times, a micro-USD at a time, from what the last voucher leaves free.
  const stream = hold();
  await spendFromChannel(db, backend, alone.at(-1), 0, stream);
  let held = 0;
  t = performance.now();
  for (let i = 1; i <= N; i++) {
    const raised = await raiseChannelHold(db, stream, held + 1, held + 1);
    if (!raised.raised) throw new Error(`the hold was not raised at step ${i}`);
    held = raised.held;
  }
  const raise = performance.now() - t;
  await db.close();
  rmSync(dir, { recursive: true, force: true });
  const line = (label, ms) =>
    `${name.padEnd(11)} ${label.padEnd(34)} ${((N / ms) * 1000).toFixed(0).padStart(6)} /s   ${((ms / N) * 1000).toFixed(0)} µs each`;
  console.log(line('a new voucher per call', fresh));
  console.log(line('one voucher signed ahead, repeated', same));
  console.log(line('a call ended (its hold settled)', settled));
  console.log(line('a voucher sent on its own', sent));
  console.log(line("a metered stream's hold raised", raise));
}

console.log(
  `\nVouchers accepted on one channel, ${N} in sequence (signature check + reservation in the locked row)`,
);
await run('SQLite');
const adminUrl = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const name = `kasir_bench_${Date.now().toString(36)}`;
const admin = new pg.Client({ connectionString: adminUrl });
try {
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  await run('PostgreSQL', url.toString());
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
} catch (err) {
  console.log(`PostgreSQL  skipped: ${err.message}`);
} finally {
  await admin.end().catch(() => {});
}
