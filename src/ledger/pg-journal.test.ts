// The PostgreSQL charge journal: charges committed as rows, shared INSERTs, and the adoption of a killed or
// stopped owner's rows.
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { useTestDb } from '../../test/support/app.js';
import {
  chargedCalls,
  chargedUsage,
  chargeRecord,
  fundedAccount,
  openLease,
} from '../../test/support/ledger.js';
import { postgresUp } from '../../test/support/services.js';
import { getBalance } from './books.js';
import { thisProcess } from './charge-journal.js';
import { ledgerTotals } from './history.js';
import { newId } from './ids.js';
import { PgChargeJournal, recordsOf } from './pg-journal.js';
import { replayDeadOwners } from './pg-journal-replay.js';
import { Reserves } from './reserves.js';

const usage = chargedUsage;

/** A replayer on another machine: it can tell a dead owner only by its heartbeat. */
const otherHost = { host: 'another-host', pid: 1, nonce: 'abcdef012345' };

describe.runIf(postgresUp)('the charge journal in PostgreSQL', () => {
  const store = useTestDb('postgres');
  const pool = () => {
    const db = store.db;
    if (db.kind !== 'postgres') throw new Error('postgres only');
    return db.pool;
  };
  /** Journals (with their reserves, when a test made them) to close after each test. */
  const open: Array<{ reserves?: Reserves; journal: PgChargeJournal }> = [];
  afterEach(async () => {
    for (const o of open.splice(0)) {
      await o.reserves?.close().catch(() => {});
      await o.journal.close().catch(() => {});
    }
  });

  /** An instance's journal and reserves, as wiring.ts opens them on PostgreSQL. */
  async function instance() {
    const journal = await PgChargeJournal.open(pool(), thisProcess());
    const reserves = new Reserves(store.db, { maxMicroUsd: 5_000, idleMs: 60_000, ttlSeconds: 600, journal });
    const opened = { reserves, journal };
    open.push(opened);
    return opened;
  }
  const rows = async (owner: string) =>
    (await pool().query('SELECT key FROM charge_journal WHERE owner = $1', [owner])).rows.length;
  const records = async (owner: string) =>
    recordsOf((await pool().query('SELECT record FROM charge_journal WHERE owner = $1', [owner])).rows);
  const charged = (accountId: string) => chargedCalls(store.db, accountId);

  /** An instance's journal holding a lease of 1,000 µ$ on `accountId`, opened in the ledger too. */
  async function journalWithLease(accountId: string) {
    const journal = await PgChargeJournal.open(pool(), thisProcess());
    const leaseId = newId('lease');
    await journal.append({ k: 'lease', lease: leaseId, account: accountId });
    await openLease(store.db, leaseId, accountId, 1_000);
    return { journal, leaseId };
  }
  /** Killed, on a disk nobody will see again: its writes and its heartbeat stop (and the heartbeat is long stale). */
  async function kill(journal: PgChargeJournal) {
    journal.halt();
    await pool().query(
      "UPDATE journal_owners SET heartbeat_at = now() - interval '1 hour' WHERE owner = $1",
      [journal.owner],
    );
  }

  it('commits a charge as a row before commit() resolves, and shares one INSERT among calls that end together', async () => {
    const id = await fundedAccount(store.db, 100_000);
    const { reserves, journal } = await instance();
    const calls = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        reserves.reserve(id, 100, { keyId: null, offerId: 'o', requestId: `r${i}` }),
      ),
    );
    const captures = await Promise.all(calls.map((c, i) => c.capture(usage(id, `r${i}`, 100))));
    const before = journal.inserts;
    const durable = captures.map((c) => c.commit());
    expect(durable.every((d) => d instanceof Promise)).toBe(true);
    await Promise.all(durable);
    // The lease's record and 40 charges: far fewer INSERTs, and rows, than calls.
    expect(journal.inserts - before).toBeLessThanOrEqual(3);
    const held = await records(journal.owner);
    expect(held.filter((r) => r.k === 'charge')).toHaveLength(40);
    expect(held.filter((r) => r.k === 'lease')).toHaveLength(1);
    expect(await rows(journal.owner)).toBeLessThanOrEqual(4);
    // Once the ledger has them, their rows go (the open lease's stays).
    await reserves.flush();
    await expect.poll(() => rows(journal.owner), { timeout: 5_000 }).toBeLessThanOrEqual(1);
    expect(await charged(id)).toBe(40);
  });

  it("charges a killed instance's answered calls once from its rows, on any instance, and releases its lease", async () => {
    const id = await fundedAccount(store.db, 10_000);
    // The dead instance: a lease and three answered charges journalled, none of them written to the ledger.
    const { journal: dead, leaseId } = await journalWithLease(id);
    for (let i = 0; i < 3; i++) await dead.append(chargeRecord(id, leaseId, 250));
    await kill(dead);
    expect(await charged(id)).toBe(0);
    expect(await getBalance(store.db, id)).toMatchObject({ balanceMicroUsd: 10_000, heldMicroUsd: 1_000 });

    // Another instance replays it.
    const other = otherHost;
    const report = await replayDeadOwners(store.db, other);
    expect(report).toMatchObject({ files: 1, charged: 3, released: 1, failed: 0 });
    expect(await getBalance(store.db, id)).toMatchObject({ balanceMicroUsd: 9_250, heldMicroUsd: 0 });
    expect(await ledgerTotals(store.db, id)).toEqual({ balance: 9_250, held: 0 });
    expect(await charged(id)).toBe(3);
    const left = await pool().query('SELECT count(*)::int AS n FROM charge_journal WHERE owner LIKE $1', [
      `${other}%`,
    ]);
    expect(left.rows[0].n).toBe(0);
    // Nothing twice.
    expect(await replayDeadOwners(store.db, other)).toMatchObject({ files: 0, charged: 0 });
  });

  it('deletes a page whose records all settled before or while it was written, once its insert is in', async () => {
    const journal = await PgChargeJournal.open(pool(), thisProcess());
    open.push({ journal });
    // Settled in the same turn as its append: the record is in no page yet when the ledger has it.
    const early = newId('hold');
    const first = journal.append({ k: 'hold', hold: early, account: 'acct_x' });
    journal.settled('hold', [early]);
    await first;
    // Settled while its page's insert is in flight.
    const late = newId('hold');
    const second = journal.append({ k: 'hold', hold: late, account: 'acct_x' });
    await new Promise((r) => setImmediate(r));
    journal.settled('hold', [late]);
    await second;
    expect(journal.pending).toBe(0);
    await expect.poll(() => rows(journal.owner), { timeout: 5_000 }).toBe(0);
  });

  it('replays rows an earlier version wrote one record each, beside pages', async () => {
    const id = await fundedAccount(store.db, 10_000);
    const { journal: dead, leaseId } = await journalWithLease(id);
    const charge = chargeRecord(id, leaseId, 300);
    await pool().query('INSERT INTO charge_journal (owner, key, record) VALUES ($1, $2, $3)', [
      dead.owner,
      `charge:${charge.id}`,
      JSON.stringify(charge),
    ]);
    await kill(dead);
    expect(await replayDeadOwners(store.db, otherHost)).toMatchObject({ files: 1, charged: 1, released: 1 });
    expect(await getBalance(store.db, id)).toMatchObject({ balanceMicroUsd: 9_700, heldMicroUsd: 0 });
    expect(await charged(id)).toBe(1);
  });

  it('never adopts a live owner, and removes its own owner row when it closes with nothing pending', async () => {
    const id = await fundedAccount(store.db, 10_000);
    const { reserves, journal } = await instance();
    const call = await reserves.reserve(id, 100, { keyId: null, offerId: 'o', requestId: 'live' });
    await (await call.capture(usage(id, 'live', 100))).commit();
    expect(await replayDeadOwners(store.db, otherHost)).toMatchObject({ files: 0 });
    open.pop();
    await reserves.close();
    await journal.close();
    const owners = await pool().query('SELECT owner FROM journal_owners WHERE owner = $1', [journal.owner]);
    expect(owners.rows).toEqual([]);
    expect(await charged(id)).toBe(1);
  });

  it('adopts at once, with no wait for the heartbeat, the rows of a process of this host that no longer runs', async () => {
    const exited = spawnSync(process.execPath, ['-e', '0']);
    const gone = { ...thisProcess(), pid: exited.pid ?? 0 };
    const id = await fundedAccount(store.db, 1_000);
    const dead = await PgChargeJournal.open(pool(), gone);
    const holdId = newId('hold');
    await dead.append({ k: 'hold', hold: holdId, account: id });
    dead.halt();
    // Its heartbeat is fresh: another host would wait; this host sees the pid is gone.
    expect(await replayDeadOwners(store.db, otherHost)).toMatchObject({ files: 0 });
    expect(await replayDeadOwners(store.db, thisProcess())).toMatchObject({ files: 1 });
  });
});
