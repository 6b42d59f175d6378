/**
 * The charge journal as PostgreSQL rows, for instances that share a database: a charge is committed to
 * `charge_journal` before its answer's last bytes leave, so it survives the instance's disk (a container replaced
 * elsewhere on an empty one), and any instance can replay it (pg-journal-replay.ts). The rows are written with
 * group commit: an append joins the INSERT about to be sent, and the answers it pays for wait for that one commit
 * (one round trip for all the calls that finished meanwhile). Once a charge's ledger write is in, its row is
 * deleted, in batches, in the same statement as the next insert (or alone when no insert comes).
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

export class PgChargeJournal implements Journal {
  private readonly live = new Map<string, JournalRecord>();
  private queue: Waiter[] = [];
  private deletes: string[] = [];
  /** The write under way (an INSERT batch, then any DELETE batch): writes go one at a time, in order. */
  private writing: Promise<void> | null = null;
  private readonly heartbeat: NodeJS.Timeout;
  private closed = false;
  /** INSERT statements sent: a test reads it to see appends share commits. */
  inserts = 0;

  /** The journal's own connection (synchronous_commit off), taken on first write and after a failed one. */
  private client: pg.PoolClient | null = null;

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
      this.kick();
    });
  }

  settled(kind: JournalRecord['k'], ids: Iterable<string>): void {
    for (const id of ids) {
      const key = `${kind}:${id}`;
      if (this.live.delete(key)) this.deletes.push(key);
    }
    // Deletes ride behind the next insert, or go alone a moment later: no caller waits for them.
    if (this.deletes.length > 0 && !this.writing) setTimeout(() => this.kick(), 50).unref();
  }

  get pending(): number {
    return this.live.size;
  }

  /** Waits for queued writes; removes this owner when nothing is left to replay, else marks it dead at once. */
  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    this.kick();
    while (this.writing) await this.writing;
    this.closed = true;
    this.client?.release();
    this.client = null;
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
    this.queue = [];
    this.deletes = [];
    this.client?.release();
    this.client = null;
  }

  /** Starts the next write unless one is under way (which starts it when it ends). */
  private kick(): void {
    if (this.closed || this.writing || (this.queue.length === 0 && this.deletes.length === 0)) return;
    this.writing = this.writeOnce().finally(() => {
      this.writing = null;
      this.kick();
    });
  }

  private async writeOnce(): Promise<void> {
    let batch = this.queue;
    this.queue = [];
    let keys = this.deletes;
    this.deletes = [];
    if (batch.length > 0 && keys.length > 0) {
      // A charge whose ledger write is in before its row was sent needs no row: its answer may leave at once.
      const gone = new Set(keys);
      const needless = batch.filter((w) => gone.has(w.key));
      if (needless.length > 0) {
        const sent = new Set(needless.map((w) => w.key));
        batch = batch.filter((w) => !sent.has(w.key));
        keys = keys.filter((k) => !sent.has(k));
        for (const w of needless) w.done();
      }
    }
    if (batch.length > 0) {
      // One statement, one round trip: the new rows in, and the rows of charges the ledger has since written out
      // (a data-modifying WITH; the two touch different keys). Retried until it commits: the charges are already
      // queued for the ledger, so an answer that did not wait here would be charged and not delivered. Each attempt
      // is idempotent (ON CONFLICT; deleting what is gone deletes nothing).
      for (let attempt = 0; ; attempt++) {
        try {
          this.inserts++;
          const client = await this.connection();
          await client.query(
            `WITH gone AS (DELETE FROM charge_journal WHERE owner = $1 AND key = ANY($4::text[]))
             INSERT INTO charge_journal (owner, key, record)
             SELECT $1, k, r FROM unnest($2::text[], $3::text[]) AS t(k, r)
             ON CONFLICT (owner, key) DO NOTHING`,
            [this.owner, batch.map((w) => w.key), batch.map((w) => JSON.stringify(w.record)), keys],
          );
          break;
        } catch (err) {
          this.onError(err);
          this.dropConnection(err);
          await new Promise((r) => setTimeout(r, RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]));
        }
      }
      for (const w of batch) w.done();
      return;
    }
    if (keys.length > 0) {
      try {
        const client = await this.connection();
        await client.query('DELETE FROM charge_journal WHERE owner = $1 AND key = ANY($2::text[])', [
          this.owner,
          keys,
        ]);
      } catch (err) {
        // Left rows are harmless: a replay finds their charges already written.
        this.onError(err);
        this.dropConnection(err);
      }
    }
  }

  private async connection(): Promise<pg.PoolClient> {
    if (this.client) return this.client;
    const client = await this.pool.connect();
    try {
      await client.query('SET synchronous_commit TO off');
    } catch (err) {
      client.release(err as Error);
      throw err;
    }
    this.client = client;
    return client;
  }

  /** A failed write's connection is discarded (it may be broken); the next write takes a new one. */
  private dropConnection(err: unknown): void {
    this.client?.release(err instanceof Error ? err : new Error(String(err)));
    this.client = null;
  }
}
