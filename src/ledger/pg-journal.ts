/**
 * The charge journal as PostgreSQL rows, for instances that share a database: a charge is committed to
 * `charge_journal` before its answer's last bytes leave, so it survives the instance's disk (a container replaced
 * elsewhere on an empty one), and any instance can replay it (pg-journal-replay.ts). The rows are written with
 * group commit: an append joins the write about to be sent, and the answers it pays for wait for that one commit
 * (one round trip for all the calls that finished meanwhile). Two such writes may be in flight at once, each on
 * a connection of its own, so a group does not also wait out the round trip of the group before it.
 *
 * A group is one row, a page: its key is `page:<n>` and its record the JSON array of the group's records. A row per
 * record cost PostgreSQL a heap tuple and an index entry per call, inserted and then deleted, and under paid load
 * the dead ones piled up between two autovacuums (75,000 of them, a 50 MB table, within a minute of a benchmark),
 * which every later insert and delete paid for; a page costs that once per group. Once the ledger has every record
 * of a page, the page is deleted, in batches of up to DELETE_BATCH pages or every DELETE_AFTER_MS, behind the
 * inserts (never before its own insert is done: the delete would find nothing and leave the row). Rows written
 * one per record by an earlier version still replay.
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

/** The records journal rows hold: a page's array, or the one record of a row an earlier version wrote per record. */
export function recordsOf(rows: Iterable<{ record: string }>): JournalRecord[] {
  const records: JournalRecord[] = [];
  for (const row of rows) {
    const held = JSON.parse(row.record) as JournalRecord | JournalRecord[];
    if (Array.isArray(held)) records.push(...held);
    else records.push(held);
  }
  return records;
}

interface Waiter {
  key: string;
  record: JournalRecord;
  done: () => void;
}

/** A group's row, and how many of its records the ledger does not have yet. */
interface Page {
  key: string;
  left: number;
  /** Its insert has committed: it may be deleted once `left` is 0. */
  written: boolean;
}

const RETRY_MS = [25, 100, 250, 500, 1000];
/** Journal writes in flight at once, each on its own connection. */
const WRITERS = 2;
/**
 * Settled pages are deleted in batches this large, or this long after the first of them settled: no answer waits
 * for a delete, so one statement per many groups (a delete per insert cost a round trip, and its CPU, per group).
 */
const DELETE_BATCH = 64;
const DELETE_AFTER_MS = 100;

/**
 * The journal's two statements, prepared once per connection (named): parsing and planning an unnamed statement
 * cost PostgreSQL about as much CPU again as running it, once per group of calls.
 */
const INSERT_SQL =
  'INSERT INTO charge_journal (owner, key, record) VALUES ($1, $2, $3) ON CONFLICT (owner, key) DO NOTHING';
const DELETE_SQL =
  'DELETE FROM charge_journal WHERE owner = $1 AND key IN (SELECT json_array_elements_text($2::json))';

export class PgChargeJournal implements Journal {
  /** Records the ledger may not have yet, by key: with their page once it is being written, null before. */
  private readonly live = new Map<string, Page | null>();
  /** Pages written so far; the next page's number. */
  private pages = 0;
  private queue: Waiter[] = [];
  private deletes: string[] = [];
  /** Set when the queued deletes are old enough to go however few they are. */
  private deleteDue = false;
  private deleteTimer: NodeJS.Timeout | undefined;
  private kickPending = false;
  /** The writes under way (a page's INSERT, then any DELETE batch), at most WRITERS. */
  private readonly writing = new Set<Promise<void>>();
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
    this.live.set(key, null);
    return new Promise<void>((done) => {
      this.queue.push({ key, record, done });
      this.kickSoon();
    });
  }

  settled(kind: JournalRecord['k'], ids: Iterable<string>): void {
    for (const id of ids) {
      const key = `${kind}:${id}`;
      const page = this.live.get(key);
      if (page === undefined) continue;
      this.live.delete(key);
      // A record not in a page yet leaves its page's count before it starts (see writeOnce).
      if (page && --page.left === 0 && page.written) this.deletes.push(page.key);
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

  /** Whether the queued deletes should go now: they are due, or a full batch of them is waiting. */
  private wantDeletes(): boolean {
    return (this.deleteDue && this.deletes.length > 0) || this.deletes.length >= DELETE_BATCH;
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

  /** Takes the queued deletes (only written pages are ever queued). */
  private takeDeletes(): string[] {
    const ready = this.deletes;
    this.deletes = [];
    this.deleteDue = false;
    return ready;
  }

  // Takes its batch synchronously (before its first await), so kick() never starts two writes on one batch.
  private async writeOnce(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    let keys = batch.length === 0 ? this.takeDeletes() : [];
    if (batch.length > 0) {
      const page: Page = { key: `page:${++this.pages}`, left: 0, written: false };
      // Only records still live and in no page yet: one the ledger already has leaves no count to wait for.
      for (const w of batch)
        if (this.live.get(w.key) === null) {
          this.live.set(w.key, page);
          page.left++;
        }
      // Retried until it commits: the charges are already queued for the ledger, so an answer that did not wait
      // here would be charged and not delivered. Each attempt is idempotent (ON CONFLICT).
      for (let attempt = 0; ; attempt++) {
        let client: pg.PoolClient | undefined;
        try {
          this.inserts++;
          client = await this.connection();
          // The page's records as one JSON array: one native JSON.stringify, and one text for node-postgres to send.
          await client.query({
            name: 'kasir_journal_insert',
            text: INSERT_SQL,
            values: [this.owner, page.key, JSON.stringify(batch.map((w) => w.record))],
          });
          this.reuse(client);
          break;
        } catch (err) {
          this.onError(err);
          this.discard(client, err);
          await new Promise((r) => setTimeout(r, RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]));
        }
      }
      page.written = true;
      // Every record of it settled while it was being written.
      if (page.left === 0) {
        this.deletes.push(page.key);
        this.scheduleDeletes();
      }
      for (const w of batch) w.done();
      if (this.wantDeletes()) keys = this.takeDeletes();
    }
    if (keys.length > 0) {
      let client: pg.PoolClient | undefined;
      try {
        client = await this.connection();
        await client.query({
          name: 'kasir_journal_delete',
          text: DELETE_SQL,
          values: [this.owner, JSON.stringify(keys)],
        });
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
