/**
 * Group commit for SQLite: money mutations submitted during one turn of the event loop run together in ONE
 * transaction, each inside its own savepoint. A failing mutation (insufficient balance) rolls back only its
 * savepoint; a failing commit fails them all. Under concurrency this turns N commits (each appending WAL
 * frames and taking file locks) into one, which is most of what a hold or a capture costs.
 */
import type SQLite from 'better-sqlite3';

interface Pending {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; err: unknown };

export class GroupCommit {
  private queue: Pending[] = [];
  private scheduled = false;
  private readonly batch: SQLite.Transaction<(items: Pending[]) => Outcome[]>;

  constructor(raw: SQLite.Database) {
    // Nested transactions in better-sqlite3 are savepoints: one item's throw undoes only that item.
    const one = raw.transaction((fn: () => unknown) => fn());
    this.batch = raw.transaction((items: Pending[]) =>
      items.map((item): Outcome => {
        try {
          return { ok: true, value: one(item.fn) };
        } catch (err) {
          return { ok: false, err };
        }
      }),
    );
  }

  /** Runs `fn` (synchronous statements only) in the next group transaction. */
  submit<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const items = this.queue;
    this.queue = [];
    let outcomes: Outcome[];
    try {
      outcomes = this.batch.immediate(items);
    } catch (err) {
      for (const item of items) item.reject(err);
      return;
    }
    items.forEach((item, i) => {
      const o = outcomes[i] as Outcome;
      if (o.ok) item.resolve(o.value);
      else item.reject(o.err);
    });
  }
}
