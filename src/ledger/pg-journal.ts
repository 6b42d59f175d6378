/**
 * The charge journal as PostgreSQL rows, for instances that share a database: a charge is committed to
 * `charge_journal` before its answer's last bytes leave, so it survives the instance's disk (a container replaced
 * elsewhere on an empty one), and any instance can replay it (pg-journal-replay.ts). The rows are written with
 * group commit: an append joins the INSERT about to be sent, and the answers it pays for wait for that one commit
 * (one round trip for all the calls that finished meanwhile). Two such writes may be in flight at once, each on
 * a connection of its own, so a group does not also wait out the round trip of the group before it. Once a
 * charge's ledger write is in, its row is deleted, in batches of up to DELETE_BATCH or every DELETE_AFTER_MS, behind
 * the inserts (never while its own insert is still in flight: the delete would find nothing and leave the row).
 *
 * The journal's writes go through a connection of their own with `synchronous_commit` off: a row is visible to
 * every instance, and survives this one, as soon as its commit returns, without waiting for PostgreSQL's disk
 * flush (a round trip instead of a round trip plus an fsync per group). What that gives up is a PostgreSQL crash
 * within its WAL writer's delay (200 ms by default) losing the newest rows, the counterpart of the file journal's
 * power cut (no fsync per call there either); the ledger's own writes stay synchronous.
 *
 * Each instance keeps a `journal_owners` row whose `heartbeat_at` (the database's clock) it renews every
 * HEARTBEAT_MS; an owner silent for STALE_SECONDS is dead and its rows are replayed.
 *
 * Written here: no library journals charges against an HTTP answer (see charge-journal.ts).
 */
import type pg from 'pg';
import {
  HEARTBEAT_MS,
  type Journal,
  type JournalOwner,
  type JournalRecord,
  keyOf,
} from './charge-journal.js';

/** An owner whose heartbeat is older than this is dead: its rows are replayed by any instance. */
export const STALE_SECONDS = 30;

/** The owner's name in the tables: host, pid and nonce, as a journal file's name has them. */
export const ownerName = (o: JournalOwner): string => `${o.host}_${o.pid}_${o.nonce}`;

interface Waiter {
  key: string;
  record: JournalRecord;
  done: () => void;
}

const RETRY_MS = [25, 100, 250, 500, 1000];
/** Journal writes in flight at once, each on its own connection. */
const WRITERS = 2;
/**
 * Settled rows are deleted in batches this large, or this long after the first of them settled: no answer waits for
 * a delete, so one statement per many calls (a delete per insert cost a round trip, and its CPU, per call or two).
 */
const DELETE_BATCH = 500;
const DELETE_AFTER_MS = 100;

export class PgChargeJournal implements Journal {
  private readonly live = new Map<string, JournalRecord>();
  private queue: Waiter[] = [];
  private deletes: string[] = [];
  /** Set when the queued deletes are old enough to go however few they are. */
  private deleteDue = false;
  private deleteTimer: NodeJS.Timeout | undefined;
  private kickPending = false;
  /** The writes under way (an INSERT batch, then any DELETE batch), at most WRITERS. */
  private readonly writing = new Set<Promise<void>>();
  /** Keys whose INSERT is in flight: their deletes wait until it is done. */
  private readonly sending = new Set<string>();
  private readonly heartbeat: NodeJS.Timeout;
  private closed = false;
  /** INSERT statements sent: a test reads it to see appends share commits. */
  inserts = 0;

  /** The journal's own connections (synchronous_commit off) not in use; opened as writes need them. */
  private readonly idle: pg.PoolClient[] = [];

  private constructor(
    private readonly pool: pg.Pool,
    readonly owner: string,
    private readonly onError: (err: unknown) => void,
  ) {
    this.heartbeat = setInterval(() => {
      this.pool
        .query('UPDATE journal_owners SET heartbeat_at = now() WHERE owner = $1', [this.owner])
        .catch(this.onError);
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** Registers this instance as a live owner and returns its journal. */
  static async open(
    pool: pg.Pool,
    owner: JournalOwner,
    onError: (err: unknown) => void = () => {},
  ): Promise<PgChargeJournal> {
    const name = ownerName(owner);
    await pool.query(
      'INSERT INTO journal_owners (owner, heartbeat_at) VALUES ($1, now()) ON CONFLICT (owner) DO UPDATE SET heartbeat_at = now()',
      [name],
    );
    return new PgChargeJournal(pool, name, onError);
  }

  /** Resolves once the record is committed: the answer it pays for may then leave. */
  append(record: JournalRecord): Promise<void> {
    const key = keyOf(record);
    this.live.set(key, record);
    return new Promise<void>((done) => {
      this.queue.push({ key, record, done });
      this.kickSoon();
    });
  }

  settled(kind: JournalRecord['k'], ids: Iterable<string>): void {
    for (const id of ids) {
      const key = `${kind}:${id}`;
      if (this.live.delete(key)) this.deletes.push(key);
    }
    this.scheduleDeletes();
    if (this.wantDeletes()) this.kick();
  }

  get pending(): number {
    return this.live.size;
  }

  /** Waits for queued writes; removes this owner when nothing is left to replay, else marks it dead at once. */
  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    clearTimeout(this.deleteTimer);
    for (;;) {
      this.deleteDue = true;
      this.kick();
      if (this.writing.size === 0) break;
      await Promise.all([...this.writing]);
    }
    this.closed = true;
    for (const client of this.idle.splice(0)) client.release();
    if (this.live.size === 0) {
      await this.pool.query('DELETE FROM charge_journal WHERE owner = $1', [this.owner]);
      await this.pool.query('DELETE FROM journal_owners WHERE owner = $1', [this.owner]);
    } else {
      await this.pool.query("UPDATE journal_owners SET heartbeat_at = 'epoch' WHERE owner = $1", [
        this.owner,
      ]);
    }
  }

  /** Stops the heartbeat and every later write, as a killed process would (for tests of the replay). */
  halt(): void {
    this.closed = true;
    clearInterval(this.heartbeat);
    clearTimeout(this.deleteTimer);
    this.queue = [];
    this.deletes = [];
    for (const client of this.idle.splice(0)) client.release();
  }

  /**
   * Starts writes at the end of this turn of the event loop, so every call that ends in it (the answers of all the
   * sockets read in one turn) shares one INSERT: one round trip, and one socket write, for them all.
   */
  private kickSoon(): void {
    if (this.kickPending) return;
    this.kickPending = true;
    setImmediate(() => {
      this.kickPending = false;
      this.kick();
    });
  }

  /** Starts writes while fewer than WRITERS are under way and something can be sent (each one starts the next). */
  private kick(): void {
    while (!this.closed && this.writing.size < WRITERS && (this.queue.length > 0 || this.wantDeletes())) {
      const write: Promise<void> = this.writeOnce().finally(() => {
        this.writing.delete(write);
        this.kick();
      });
      this.writing.add(write);
    }
  }

  /**
   * Whether the queued deletes should go now: they are due, or a full batch of them may go (queued deletes whose
   * insert is in flight are among `sending`, so this count is never more than those that may go).
   */
  private wantDeletes(): boolean {
    return (
      (this.deleteDue && this.deletes.length > 0) || this.deletes.length - this.sending.size >= DELETE_BATCH
    );
  }

  /** Makes the queued deletes due DELETE_AFTER_MS from now, unless a timer is already set. */
  private scheduleDeletes(): void {
    if (this.deleteTimer || this.closed || this.deletes.length === 0) return;
    this.deleteTimer = setTimeout(() => {
      this.deleteTimer = undefined;
      this.deleteDue = true;
      this.kick();
    }, DELETE_AFTER_MS);
    this.deleteTimer.unref();
  }

  /** Takes the queued deletes that may go now, leaving the others (their inserts in flight) for later. */
  private takeDeletes(): string[] {
    const ready: string[] = [];
    const waiting: string[] = [];
    for (const k of this.deletes) (this.sending.has(k) ? waiting : ready).push(k);
    this.deletes = waiting;
    this.deleteDue = false;
    this.scheduleDeletes();
    return ready;
  }

  // Takes its batch synchronously (before its first await), so kick() never starts two writes on one batch.
  private async writeOnce(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    let keys = batch.length === 0 ? this.takeDeletes() : [];
    if (batch.length > 0) {
      for (const w of batch) this.sending.add(w.key);
      // Retried until it commits: the charges are already queued for the ledger, so an answer that did not wait
      // here would be charged and not delivered. Each attempt is idempotent (ON CONFLICT).
      for (let attempt = 0; ; attempt++) {
        let client: pg.PoolClient | undefined;
        try {
          this.inserts++;
          client = await this.connection();
          // The batch as one JSON text ([[key, record], ...]): one native JSON.stringify, where text[] parameters
          // cost node-postgres an escaping pass over every element (on the event loop, per call).
          await client.query(
            `INSERT INTO charge_journal (owner, key, record)
             SELECT $1, e->>0, (e->1)::text FROM json_array_elements($2::json) AS e
             ON CONFLICT (owner, key) DO NOTHING`,
            [this.owner, JSON.stringify(batch.map((w) => [w.key, w.record]))],
          );
          this.reuse(client);
          break;
        } catch (err) {
          this.onError(err);
          this.discard(client, err);
          await new Promise((r) => setTimeout(r, RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]));
        }
      }
      for (const w of batch) this.sending.delete(w.key);
      for (const w of batch) w.done();
      if (this.wantDeletes()) keys = this.takeDeletes();
    }
    if (keys.length > 0) {
      let client: pg.PoolClient | undefined;
      try {
        client = await this.connection();
        await client.query(
          'DELETE FROM charge_journal WHERE owner = $1 AND key IN (SELECT json_array_elements_text($2::json))',
          [this.owner, JSON.stringify(keys)],
        );
        this.reuse(client);
      } catch (err) {
        // Left rows are harmless: a replay finds their charges already written.
        this.onError(err);
        this.discard(client, err);
      }
    }
  }

  /** An idle journal connection, or a new one with synchronous_commit off. */
  private async connection(): Promise<pg.PoolClient> {
    const idle = this.idle.pop();
    if (idle) return idle;
    const client = await this.pool.connect();
    try {
      await client.query('SET synchronous_commit TO off');
    } catch (err) {
      client.release(err as Error);
      throw err;
    }
    return client;
  }

  /** A connection whose write went through: kept for the next write, or given back once the journal is closed. */
  private reuse(client: pg.PoolClient): void {
    if (this.closed) client.release();
    else this.idle.push(client);
  }

  /** A failed write's connection is discarded (it may be broken); the next write takes a new one. */
  private discard(client: pg.PoolClient | undefined, err: unknown): void {
    client?.release(err instanceof Error ? err : new Error(String(err)));
  }
}
