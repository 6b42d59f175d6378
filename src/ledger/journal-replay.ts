/**
 * Replays the charge journals of instances that died (see charge-journal.ts): charges whose answers were sent but
 * whose batch never reached the database are written, each exactly once (a charge's ledger entry has a unique
 * key, looked up first), and the dead instance's leases and holds are released. Runs at start-up, before an
 * instance serves, and with every sweep (for journals of another host sharing the folder).
 *
 * A journal is orphaned when its owner is gone: a process of this host that no longer runs (or whose pid this
 * process now has), or any journal whose owner has not renewed its modification time for STALE_MS. A replayer
 * first adopts the file by renaming it to a name of its own, so two replayers never work on one file; a replayer
 * that dies mid-replay leaves an adopted file, itself orphaned, for the next.
 */
import { readdirSync, readFileSync, renameSync, statSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import type { Db } from '../store/db.js';
import { adjustBalance, captureHold, chargeLease, insertUsage, releaseHold } from './books.js';
import {
  HEARTBEAT_MS,
  type JournalOwner,
  type JournalRecord,
  journalFileName,
  parseJournalFileName,
  parseJournalLine,
} from './charge-journal.js';
import { InsufficientBalanceError, LeaseClosedError } from './errors.js';

/** A journal untouched this long is orphaned, whoever wrote it. */
const STALE_MS = 6 * HEARTBEAT_MS;

type ChargeRecord = Extract<JournalRecord, { k: 'charge' }>;
type CaptureRecord = Extract<JournalRecord, { k: 'capture' }>;

export interface ReplayReport {
  files: number;
  /** Charges written now (their answers had been sent, their batch had not reached the database). */
  charged: number;
  /** Of those, charges debited straight from the balance because their lease or hold had been released meanwhile. */
  debited: number;
  /** Charges the balance could no longer cover (their lease was released and the money spent since). */
  lost: number;
  /** Leases and holds of dead instances released. */
  released: number;
  /** Journals whose replay failed (the database refused a write): kept, adopted, for the next attempt. */
  failed: number;
}

export interface ReplayLog {
  error(obj: object, msg: string): void;
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function orphaned(owner: JournalOwner, mtimeMs: number, self: JournalOwner): boolean {
  if (Date.now() - mtimeMs > STALE_MS) return true;
  if (owner.host !== self.host) return false;
  // Same host and pid but another nonce: an earlier process this pid belonged to (a restarted container's).
  if (owner.pid === self.pid) return owner.nonce !== self.nonce;
  return !processAlive(owner.pid);
}

const sameOwner = (a: JournalOwner, b: JournalOwner) =>
  a.host === b.host && a.pid === b.pid && a.nonce === b.nonce;

/** Replays every orphaned journal in `dir` (and this process's own adopted ones an earlier attempt left). */
export async function replayOrphanJournals(
  db: Db,
  dir: string,
  self: JournalOwner,
  log?: ReplayLog,
): Promise<ReplayReport> {
  const report: ReplayReport = { files: 0, charged: 0, debited: 0, lost: 0, released: 0, failed: 0 };
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return report;
  }
  for (const name of names) {
    const tmp = name.endsWith('.tmp');
    const owner = parseJournalFileName(tmp ? name.slice(0, -4) : name);
    if (!owner) continue;
    const file = path.join(dir, name);
    const mine = sameOwner(owner, self);
    let mtimeMs: number;
    try {
      mtimeMs = statSync(file).mtimeMs;
    } catch {
      continue; // adopted or removed meanwhile
    }
    if (mine ? !owner.part.startsWith('adopted-') : !orphaned(owner, mtimeMs, self)) continue;
    if (tmp) {
      // A rotation cut short: the file it was copying from is still there.
      unlinkQuietly(file);
      continue;
    }
    const adopted = mine ? file : adopt(file, dir, self);
    if (!adopted) continue;
    try {
      await replayFile(db, adopted, report, log);
    } catch (err) {
      // Each step is idempotent: the next attempt (this process's next sweep, or the next start) redoes it.
      log?.error({ err, journal: path.basename(adopted) }, 'could not replay a charge journal; will retry');
      report.failed++;
      continue;
    }
    unlinkQuietly(adopted);
    report.files++;
  }
  return report;
}

/** Renames an orphaned journal to a name of this process's; null when another replayer took it first. */
function adopt(file: string, dir: string, self: JournalOwner): string | null {
  const target = path.join(
    dir,
    journalFileName(self, `adopted-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`),
  );
  try {
    renameSync(file, target);
    return target;
  } catch {
    return null;
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}

function readRecords(file: string): JournalRecord[] {
  const records: JournalRecord[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    try {
      records.push(parseJournalLine(line));
    } catch {
      // The last line of a process killed mid-write: its answer had not left yet.
    }
  }
  return records;
}

async function replayFile(db: Db, file: string, report: ReplayReport, log?: ReplayLog): Promise<void> {
  await replayRecords(db, readRecords(file), report, log);
}

/**
 * Applies a dead instance's journal records: each charge written once, its leases and holds released. Every step
 * is idempotent, so records replayed twice (a replayer that died mid-way) change nothing the second time.
 */
export async function replayRecords(
  db: Db,
  records: JournalRecord[],
  report: ReplayReport,
  log?: ReplayLog,
): Promise<void> {
  const toRelease = new Set<string>();
  const charges = new Map<string, Map<string, ChargeRecord>>();
  const captures = new Map<string, CaptureRecord>();
  for (const r of records) {
    if (r.k === 'lease') toRelease.add(r.lease);
    else if (r.k === 'hold') toRelease.add(r.hold);
    else if (r.k === 'charge') {
      toRelease.add(r.lease);
      const ofLease = charges.get(r.lease) ?? new Map<string, ChargeRecord>();
      ofLease.set(r.id, r);
      charges.set(r.lease, ofLease);
    } else {
      toRelease.add(r.hold);
      captures.set(r.hold, r);
    }
  }
  for (const [leaseId, ofLease] of charges) {
    const outcome = await writeLeaseCharges(db, leaseId, [...ofLease.values()]);
    report.charged += outcome.charged;
    report.debited += outcome.debited;
    report.lost += outcome.lost.length;
    for (const c of outcome.lost) log?.error({ chargeId: c.id, amountMicroUsd: c.amount }, 'charge lost');
  }
  for (const c of captures.values()) {
    const settled = await captureHold(db, c.hold, c.usage);
    if (settled.applied) report.charged++;
    else if (settled.status === 'released') {
      // The sweeper released the hold before this replay: the call's money went back; take it now.
      const outcome = await debitCharges(db, [
        { id: c.hold, account: c.account, amount: c.amount, usage: c.usage },
      ]);
      report.charged += outcome.debited;
      report.debited += outcome.debited;
      report.lost += outcome.lost.length;
    }
  }
  for (const id of toRelease) {
    try {
      if ((await releaseHold(db, id)).applied) report.released++;
    } catch {
      // Never opened: the process died before its grant or hold reached the database.
    }
  }
}

/** A charge as a debit needs it. */
export interface LateCharge {
  id: string;
  account: string;
  amount: number;
  usage: ChargeRecord['usage'];
}

const debitKey = (c: { id: string }) => `replay:${c.id}`;
/** The ledger key adjustBalance gives a late charge's debit. */
const debitEntryKey = (c: { id: string; account: string }) => `debit:${c.account}:${debitKey(c)}`;

/**
 * Writes a lease's charges that are not in the ledger yet. Charges of a lease that was released meanwhile (by
 * the sweeper, after its TTL) are debited from the balance directly, each once; charges the balance can no longer
 * cover are returned as lost.
 */
export async function writeLeaseCharges(
  db: Db,
  leaseId: string,
  records: Array<Pick<ChargeRecord, 'id' | 'account' | 'amount' | 'usage'>>,
): Promise<{ charged: number; debited: number; lost: LateCharge[] }> {
  const pending = await unwritten(db, records);
  if (pending.length === 0) return { charged: 0, debited: 0, lost: [] };
  try {
    const expiresAt = new Date(Date.now() + 60_000).toISOString();
    await chargeLease(
      db,
      leaseId,
      pending.map((c) => ({ chargeId: c.id, amountMicroUsd: c.amount, usage: c.usage })),
      expiresAt,
    );
    return { charged: pending.length, debited: 0, lost: [] };
  } catch (err) {
    if (!(err instanceof LeaseClosedError)) throw err;
    const outcome = await debitCharges(db, pending);
    return { charged: outcome.debited, ...outcome };
  }
}

/** Debits charges whose lease or hold was released before they were written: each once, while the balance covers it. */
export async function debitCharges(
  db: Db,
  charges: LateCharge[],
): Promise<{ debited: number; lost: LateCharge[] }> {
  let debited = 0;
  const lost: LateCharge[] = [];
  for (const c of charges) {
    try {
      const { applied } = await adjustBalance(db, {
        accountId: c.account,
        kind: 'debit',
        amountMicroUsd: c.amount,
        reason: `charge ${c.id} for request ${c.usage.request_id}, written after its reservation was released`,
        idempotencyKey: debitKey(c),
      });
      if (applied) {
        await insertUsage(db, [c.usage]);
        debited++;
      }
    } catch (err) {
      if (!(err instanceof InsufficientBalanceError)) throw err;
      lost.push(c);
    }
  }
  return { debited, lost };
}

/** The charges whose ledger entry (a capture from the lease, or a late debit) is not written yet. */
async function unwritten<T extends Pick<LateCharge, 'id' | 'account'>>(db: Db, charges: T[]): Promise<T[]> {
  const keys = charges.flatMap((c) => [`capture:${c.id}`, debitEntryKey(c)]);
  const seen = new Set<string>();
  for (let i = 0; i < keys.length; i += 500) {
    const rows = await db.kysely
      .selectFrom('ledger_entries')
      .select('idempotency_key')
      .where('idempotency_key', 'in', keys.slice(i, i + 500))
      .execute();
    for (const r of rows) seen.add(r.idempotency_key);
  }
  return charges.filter((c) => !seen.has(`capture:${c.id}`) && !seen.has(debitEntryKey(c)));
}
