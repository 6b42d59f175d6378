/**
 * Replays the PostgreSQL charge journal rows of instances that died (pg-journal.ts): any instance, at start-up and
 * with every sweep. A replayer first adopts a dead owner in one transaction — its rows move to a new owner name of
 * the replayer's, registered with a fresh heartbeat — so two replayers never work on the same rows; one that dies
 * mid-replay leaves an adopted owner that goes stale in turn and is adopted by the next. The records are applied by
 * the same code as a journal file's (journal-replay.ts): each charge written once, leases and holds released.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.js';
import type { JournalOwner } from './charge-journal.js';
import { processAlive, type ReplayLog, type ReplayReport, replayRecords } from './journal-replay.js';
import { ownerName, recordsOf, STALE_SECONDS } from './pg-journal.js';

/** Replays every dead owner's rows; `self` (this instance) is never adopted. */
export async function replayDeadOwners(db: Db, self: JournalOwner, log?: ReplayLog): Promise<ReplayReport> {
  const report: ReplayReport = { files: 0, charged: 0, debited: 0, lost: 0, released: 0, failed: 0 };
  if (db.kind !== 'postgres') return report;
  for (;;) {
    const adopted = await adoptOne(db, self);
    if (!adopted) return report;
    try {
      const { rows } = await db.pool.query<{ record: string }>(
        'SELECT record FROM charge_journal WHERE owner = $1',
        [adopted],
      );
      await replayRecords(db, recordsOf(rows), report, log);
      await db.pool.query('DELETE FROM charge_journal WHERE owner = $1', [adopted]);
      await db.pool.query('DELETE FROM journal_owners WHERE owner = $1', [adopted]);
      report.files++;
    } catch (err) {
      // Left adopted, with a heartbeat nobody renews: the next sweep (here or elsewhere) adopts it again.
      log?.error({ err, owner: adopted }, 'could not replay a charge journal; will retry');
      report.failed++;
      return report;
    }
  }
}

/**
 * Dead: silent for STALE_SECONDS (by the database's clock), or a process of this host that no longer runs (or whose
 * pid this process now has): an instance restarted on the same machine replays at once instead of after the wait.
 */
function deadOwner(owner: string, stale: boolean, self: JournalOwner): boolean {
  if (stale) return true;
  const [host, pid, rest] = owner.split('_');
  if (host !== self.host || !pid || !rest) return false;
  if (Number(pid) === self.pid) return !rest.startsWith(self.nonce);
  return !processAlive(Number(pid));
}

/** Takes one dead owner's rows under a new owner name; null when there is none (or another replayer took it). */
async function adoptOne(db: Extract<Db, { kind: 'postgres' }>, self: JournalOwner): Promise<string | null> {
  const me = ownerName(self);
  const candidates = await db.pool.query<{ owner: string; stale: boolean }>(
    `SELECT owner, heartbeat_at < now() - make_interval(secs => $1) AS stale FROM journal_owners
     WHERE owner <> $2 ORDER BY heartbeat_at`,
    [STALE_SECONDS, me],
  );
  for (const { owner, stale } of candidates.rows) {
    if (!deadOwner(owner, stale, self)) continue;
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      const locked = await client.query(
        'SELECT owner FROM journal_owners WHERE owner = $1 FOR UPDATE SKIP LOCKED',
        [owner],
      );
      if (locked.rows.length === 0) {
        await client.query('ROLLBACK');
        continue; // another replayer has it
      }
      const adopted = `${me}~adopted-${randomUUID().slice(0, 8)}`;
      await client.query('UPDATE charge_journal SET owner = $1 WHERE owner = $2', [adopted, owner]);
      await client.query('UPDATE journal_owners SET owner = $1, heartbeat_at = now() WHERE owner = $2', [
        adopted,
        owner,
      ]);
      await client.query('COMMIT');
      return adopted;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }
  return null;
}
