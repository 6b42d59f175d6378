// Replay of the charge journal on each database: a dead instance's charges written once, and running
// instances' journals left alone.
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DB_TARGETS, useTestDb } from '../../test/support/app.js';
import {
  chargedCalls,
  chargedUsage,
  chargeRecord,
  fundedAccount,
  openLease,
} from '../../test/support/ledger.js';
import { getBalance, placeHold, sweepExpiredHolds } from './books.js';
import {
  ChargeJournal,
  type JournalOwner,
  journalFileName,
  journalLine,
  parseJournalLine,
  thisProcess,
} from './charge-journal.js';
import { ledgerTotals } from './history.js';
import { newId } from './ids.js';
import { replayOrphanJournals } from './journal-replay.js';
import { Reserves } from './reserves.js';

const usage = chargedUsage;

const self = thisProcess();
/** An earlier process of this host that had this process's pid: its journals are orphaned. */
const earlier = (): JournalOwner => ({ ...self, nonce: `dead${Math.random().toString(36).slice(2, 8)}` });

describe.each(DB_TARGETS)('charge journal replay on %s', (target) => {
  const store = useTestDb(target);
  const dirs: string[] = [];
  const newDir = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kasir-journal-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** A lease of `amount` on the account, opened as an instance would, and recorded in `journal`. */
  async function lease(journal: ChargeJournal, accountId: string, amount: number): Promise<string> {
    const leaseId = newId('lease');
    journal.append({ k: 'lease', lease: leaseId, account: accountId });
    await openLease(store.db, leaseId, accountId, amount);
    return leaseId;
  }

  const charge = (journal: ChargeJournal, leaseId: string, accountId: string, amount: number, n: number) => {
    for (let i = 0; i < n; i++) journal.append(chargeRecord(accountId, leaseId, amount));
  };
  const charged = (accountId: string) => chargedCalls(store.db, accountId);

  it("charges a dead instance's answered calls once, releases its lease, and removes its journal", async () => {
    const dir = newDir();
    const id = await fundedAccount(store.db, 10_000);
    const dead = ChargeJournal.open(dir, earlier());
    const leaseId = await lease(dead, id, 2_000);
    charge(dead, leaseId, id, 150, 4);
    // The process dies: nothing of this reached the database but the lease.
    expect(await getBalance(store.db, id)).toMatchObject({ balanceMicroUsd: 10_000, heldMicroUsd: 2_000 });

    const report = await replayOrphanJournals(store.db, dir, self);
    expect(report).toEqual({ files: 1, charged: 4, debited: 0, lost: 0, released: 1, failed: 0 });
    expect(await getBalance(store.db, id)).toMatchObject({ balanceMicroUsd: 9_400, heldMicroUsd: 0 });
    expect(await ledgerTotals(store.db, id)).toEqual({ balance: 9_400, held: 0 });
    expect(await charged(id)).toBe(4);
    expect(readdirSync(dir)).toEqual([]);
    expect(await replayOrphanJournals(store.db, dir, self)).toMatchObject({ files: 0, charged: 0 });
  });

  it('writes only the charges that had not reached the database, whichever file holds them', async () => {
    const dir = newDir();
    const id = await fundedAccount(store.db, 10_000);
    const liveDir = newDir();
    // A live instance writes some charges; the journal of it (copied as a dead one's) holds them all.
    const live = ChargeJournal.open(liveDir);
    const reserves = new Reserves(store.db, {
      maxMicroUsd: 1_000,
      idleMs: 60_000,
      ttlSeconds: 600,
      journal: live,
    });
    const calls = await Promise.all(
      [1, 2, 3].map(() => reserves.reserve(id, 100, { keyId: null, offerId: 'o', requestId: 'r' })),
    );
    for (const c of calls) (await c.capture(usage(id, 'r', 100))).commit();
    await reserves.flush();
    const lines = readFileSync(path.join(liveDir, readdirSync(liveDir)[0] ?? ''), 'utf8');
    expect(
      lines
        .trim()
        .split('\n')
        .map((l) => parseJournalLine(l).k),
    ).toEqual(['lease', 'charge', 'charge', 'charge']);
    expect(live.pending).toBe(1); // the lease, until it goes back
    appendFileSync(path.join(dir, journalFileName(earlier(), '0')), lines);
    const report = await replayOrphanJournals(store.db, dir, self);
    // Nothing charged twice; the lease the "dead" copy names is released (the live instance then gets a new one).
    expect(report).toMatchObject({ files: 1, charged: 0, released: 1 });
    expect(await getBalance(store.db, id)).toMatchObject({ balanceMicroUsd: 9_700, heldMicroUsd: 0 });
    await reserves.close();
    live.close();
    expect(readdirSync(liveDir)).toEqual([]);
    expect(await ledgerTotals(store.db, id)).toEqual({ balance: 9_700, held: 0 });
  });

  it('debits charges whose lease the sweeper released first, while the balance covers them', async () => {
    const dir = newDir();
    const id = await fundedAccount(store.db, 1_000);
    const dead = ChargeJournal.open(dir, earlier());
    const leaseId = await lease(dead, id, 1_000);
    charge(dead, leaseId, id, 300, 2);
    await sweepExpiredHolds(store.db, new Date(Date.now() + 3_600_000));
    expect(await getBalance(store.db, id)).toMatchObject({ balanceMicroUsd: 1_000, heldMicroUsd: 0 });
    expect(await replayOrphanJournals(store.db, dir, self)).toMatchObject({
      charged: 2,
      debited: 2,
      lost: 0,
    });
    expect(await getBalance(store.db, id)).toMatchObject({ balanceMicroUsd: 400, heldMicroUsd: 0 });
    expect(await charged(id)).toBe(2);

    // The money was spent meanwhile: what the balance cannot cover is reported lost, never taken below zero.
    const dir2 = newDir();
    const dead2 = ChargeJournal.open(dir2, earlier());
    const lease2 = await lease(dead2, id, 400);
    charge(dead2, lease2, id, 300, 2);
    await sweepExpiredHolds(store.db, new Date(Date.now() + 3_600_000));
    const errors: object[] = [];
    const report = await replayOrphanJournals(store.db, dir2, self, { error: (o) => errors.push(o) });
    expect(report).toMatchObject({ charged: 1, debited: 1, lost: 1 });
    expect(errors).toHaveLength(1);
    expect(await getBalance(store.db, id)).toMatchObject({ balanceMicroUsd: 100, heldMicroUsd: 0 });
    expect(await ledgerTotals(store.db, id)).toEqual({ balance: 100, held: 0 });
  });

  it("captures a call's own hold it had answered, releases one it had not", async () => {
    const dir = newDir();
    const id = await fundedAccount(store.db, 5_000);
    const dead = ChargeJournal.open(dir, earlier());
    const place = async (amount: number) => {
      const holdId = newId('hold');
      dead.append({ k: 'hold', hold: holdId, account: id });
      await placeHold(store.db, {
        holdId,
        accountId: id,
        keyId: null,
        keySpendCapped: false,
        amountMicroUsd: amount,
        offerId: 'o',
        requestId: 'r',
        ttlSeconds: 600,
      });
      return holdId;
    };
    const answered = await place(700);
    await place(900); // still running when the process died
    dead.append({ k: 'capture', hold: answered, account: id, amount: 700, usage: usage(id, 'r', 700) });
    // A process killed mid-line leaves half a record: its answer had not left.
    appendFileSync(path.join(dir, readdirSync(dir)[0] ?? ''), '{"k":"capture","hold":"hold_');
    expect(await replayOrphanJournals(store.db, dir, self)).toMatchObject({ charged: 1, released: 1 });
    expect(await getBalance(store.db, id)).toMatchObject({ balanceMicroUsd: 4_300, heldMicroUsd: 0 });
    expect(await ledgerTotals(store.db, id)).toEqual({ balance: 4_300, held: 0 });
  });

  it('leaves the journals of running instances alone, and takes over one that stopped renewing', async () => {
    const dir = newDir();
    const id = await fundedAccount(store.db, 5_000);
    // This very process (another journal of it) and a live process of another host.
    const mine = ChargeJournal.open(dir, self);
    const otherHost = ChargeJournal.open(dir, { host: 'elsewhere', pid: 4242, nonce: 'abc123' });
    charge(mine, await lease(mine, id, 1_000), id, 100, 1);
    charge(otherHost, await lease(otherHost, id, 1_000), id, 100, 1);
    expect(await replayOrphanJournals(store.db, dir, self)).toMatchObject({ files: 0 });
    // The other host stops renewing its file's time: after the stale period it is orphaned.
    const file = path.join(dir, journalFileName({ host: 'elsewhere', pid: 4242, nonce: 'abc123' }, '0'));
    const old = new Date(Date.now() - 120_000);
    utimesSync(file, old, old);
    expect(await replayOrphanJournals(store.db, dir, self)).toMatchObject({
      files: 1,
      charged: 1,
      released: 1,
    });
    expect(existsSync(file)).toBe(false);
    mine.close();
    otherHost.close();
  });

  it('rewrites a long journal with only the records still waiting for the database', async () => {
    const dir = newDir();
    const id = await fundedAccount(store.db, 1_000_000);
    const journal = ChargeJournal.open(dir, earlier());
    const leaseId = await lease(journal, id, 1_000_000);
    // 20,000 charges of which all but the last 3 reached the database: about 10 MB of lines.
    const written: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      const chargeId = `chg_${i}`;
      journal.append({
        k: 'charge',
        lease: leaseId,
        account: id,
        id: chargeId,
        amount: 1,
        usage: usage(id, chargeId, 1),
      });
      if (i < 19_997) written.push(chargeId);
      if (written.length === 500 || i === 19_996) journal.settled('charge', written.splice(0));
    }
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    const kept = readFileSync(path.join(dir, files[0] ?? ''), 'utf8')
      .trim()
      .split('\n')
      .map(parseJournalLine);
    // What the last rewrite kept, and what was written since: far fewer lines than were appended.
    expect(kept.length).toBeLessThan(10_000);
    expect(kept.some((r) => r.k === 'lease' && r.lease === leaseId)).toBe(true);
    for (const pendingId of ['chg_19997', 'chg_19998', 'chg_19999'])
      expect(kept.filter((r) => r.k === 'charge' && r.id === pendingId)).toHaveLength(1);
    expect(journal.pending).toBe(4);
    journal.close();
  });
});

describe('journal lines', () => {
  const charged = usage('acct_1', 'req-1', 106);
  const charge = {
    k: 'charge' as const,
    lease: 'lease_1',
    account: 'acct_1',
    id: 'chg_1',
    amount: 106,
    usage: charged,
  };

  it('write a charge as a short array line that reads back as the same record', () => {
    const line = journalLine(charge);
    expect(line.startsWith('["c",')).toBe(true);
    expect(line.endsWith('\n')).toBe(true);
    expect(line.length).toBeLessThan(JSON.stringify(charge).length * 0.7);
    expect(parseJournalLine(line)).toEqual(charge);
    const wallet = {
      ...charge,
      usage: { ...charged, route: '/x402/v1/chat', network: 'eip155:8453', tx_id: '0xab' },
    };
    expect(parseJournalLine(journalLine(wallet))).toEqual(wallet);
  });

  it('write every other record as an object, and read lines an earlier version wrote as objects', () => {
    for (const record of [
      { k: 'lease' as const, lease: 'lease_1', account: 'acct_1' },
      { k: 'hold' as const, hold: 'hold_1', account: 'acct_1' },
      { k: 'capture' as const, hold: 'hold_1', account: 'acct_1', amount: 5, usage: charged },
    ]) {
      expect(journalLine(record)).toBe(`${JSON.stringify(record)}\n`);
      expect(parseJournalLine(journalLine(record))).toEqual(record);
    }
    expect(parseJournalLine(JSON.stringify(charge))).toEqual(charge);
  });

  it('refuse a line cut short, as a killed process leaves its last one', () => {
    const line = journalLine(charge).trim();
    expect(() => parseJournalLine(line.slice(0, -5))).toThrow();
    expect(() => parseJournalLine('["c","lease_1"]')).toThrow();
  });
});
