// The job runner letting go of its jobs when the instance stops: a lock or a settlement already on its way to the
// database lands before stop() releases the jobs, so another instance can take them up at once rather than after the
// lock's 30 s; a poll answered after the stop is left to the next instance. Statements and polls are held at a gate
// to put them in flight at the moment of the stop.
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  Kysely,
  SqliteAdapter,
  SqliteDialect,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CatalogEntry } from '../catalog/types.js';
import type { RailRegistry } from '../rails/registry.js';
import type { JobHolds } from '../rails/types.js';
import { type Db, openDb } from '../store/db.js';
import type { Database, JobTable } from '../store/schema.js';
import { JobRunner, type JobSettings } from './jobs.js';
import type { Offer } from './offer.js';

/** A promise opened by the test: statements matching `holds` wait on it, `reached` says one has arrived. */
function gate() {
  let open!: () => void;
  let arrive!: () => void;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  const reached = new Promise<void>((r) => {
    arrive = r;
  });
  return { opened, open, reached, arrive };
}

/**
 * SQLite's dialect with statements matching `holds` held until the gate opens, before they take the connection (one
 * connection runs statements in order, so holding one there would hold the others behind it).
 */
function gatedSqlite(
  sqlite: Extract<Db, { kind: 'sqlite' }>['sqlite'],
  holds: (q: CompiledQuery) => boolean,
) {
  const g = gate();
  const inner = new SqliteDialect({ database: sqlite });
  const dialect: Dialect = {
    createAdapter: () => new SqliteAdapter(),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
    createDriver(): Driver {
      const driver = inner.createDriver();
      const lazy: DatabaseConnection = {
        async executeQuery(q) {
          if (holds(q)) {
            g.arrive();
            await g.opened;
          }
          const connection = await driver.acquireConnection();
          try {
            return await connection.executeQuery(q);
          } finally {
            await driver.releaseConnection(connection);
          }
        },
        streamQuery: () => {
          throw new Error('not used by the job runner');
        },
      };
      return {
        init: () => driver.init(),
        acquireConnection: async () => lazy,
        beginTransaction: () => Promise.reject(new Error('not used by the job runner')),
        commitTransaction: () => Promise.resolve(),
        rollbackTransaction: () => Promise.resolve(),
        releaseConnection: async () => {},
        // The database is the test's own, closed with it.
        destroy: async () => {},
      };
    },
  };
  return { kysely: new Kysely<Database>({ dialect }), gate: g };
}

/** A statement setting a job's lock to a time (not releasing it). */
const takesLock = (q: CompiledQuery) =>
  /^update "jobs" set "locked_until" = \?/.test(q.sql) && q.parameters[0] !== null;
/** The statement recording a job's end. */
const endsJob = (q: CompiledQuery) => /^update "jobs" set "status" = \?/.test(q.sql);

/** A video offer whose upstream answers each status read with `status()`. */
const videoOffer = (status: () => Promise<{ state: string; message?: string }>) =>
  ({
    entry: { id: 'kwaivgi/kling-v2.5-turbo-pro' } as CatalogEntry,
    job: { submit: async () => ({}), status, result: async () => ({}) },
  }) as unknown as Offer;

/** The prepaid rail's job holds, noting each settlement in `settled`. */
const prepaidHolds = (settled: string[]): Partial<RailRegistry> => {
  const jobs: JobHolds = {
    hold: () => Promise.reject(new Error('not used')),
    settle: async (holdId, outcome) => {
      settled.push(`${holdId} ${outcome}`);
      return { charged: false, headers: {}, receipt: {} };
    },
  };
  return { all: () => [{ id: 'prepaid', jobs }] as never };
};

describe('JobRunner.stop', () => {
  let db: Extract<Db, { kind: 'sqlite' }>;
  const row = (id: string): JobTable => {
    const now = Date.now();
    return {
      id,
      offer_id: 'kwaivgi/kling-v2.5-turbo-pro',
      rail: 'prepaid',
      account_id: 'acc_1',
      key_id: 'key_1',
      hold_id: 'hold_1',
      amount_micro_usd: 350_000,
      request_id: 'req_1',
      handle: JSON.stringify({ requestId: 'fal-1' }),
      status: 'queued',
      result: null,
      error: null,
      created_at: new Date(now).toISOString(),
      deadline_at: new Date(now + 600_000).toISOString(),
      locked_until: null,
      locked_by: null,
      finished_at: null,
    };
  };
  const read = (id: string) =>
    db.kysely.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const runner = (
    kysely: Kysely<Database>,
    offer: Offer | undefined,
    rails: Partial<RailRegistry> = {},
    settings: Partial<JobSettings> = {},
  ) =>
    new JobRunner({
      db: { ...db, kysely },
      log: pino({ level: 'silent' }),
      rails: { all: () => [], ...rails } as RailRegistry,
      offerOf: () => offer,
      publicBaseUrl: 'http://kasir.test',
      settings: { pollFirstMs: 5, pollMaxMs: 20, deadlineMs: 600_000, submitMs: 1_000, ...settings },
    });

  beforeEach(async () => {
    const opened = await openDb({ kind: 'sqlite', file: ':memory:' });
    if (opened.kind !== 'sqlite') throw new Error('expected SQLite');
    db = opened;
  });
  afterEach(() => db.close());

  it('lets a lock already on its way land first, then releases it: the job is free for the next instance at once', async () => {
    await db.kysely.insertInto('jobs').values(row('job_a')).execute();
    const { kysely, gate } = gatedSqlite(db.sqlite, takesLock);
    const polls: string[] = [];
    const offer = videoOffer(async () => {
      polls.push('status');
      return { state: 'running' };
    });
    const first = runner(kysely, offer);
    first.start();
    // The first scan found the open job and its lock is on its way.
    await gate.reached;
    const stopped = first.stop();
    // Time for a release that did not wait to be written before the lock.
    await new Promise((r) => setTimeout(r, 50));
    gate.open();
    await stopped;
    expect(await read('job_a')).toMatchObject({ status: 'queued', locked_until: null });
    // Stopping, the runner never polled: the job's next poll is the next instance's.
    expect(polls).toEqual([]);
    const next = runner(db.kysely, offer);
    next.start();
    await expect.poll(() => polls.length, { timeout: 2_000 }).toBeGreaterThan(0);
    expect((await read('job_a')).locked_until).not.toBeNull();
    await next.stop();
    expect((await read('job_a')).locked_until).toBeNull();
    await kysely.destroy();
  });

  it('lets go of no job another instance took while its own lock was on its way', async () => {
    await db.kysely.insertInto('jobs').values(row('job_e')).execute();
    const offer = videoOffer(async () => ({ state: 'running' }));
    const { kysely, gate } = gatedSqlite(db.sqlite, takesLock);
    const first = runner(kysely, offer);
    first.start();
    await gate.reached;
    // Meanwhile another instance takes the job.
    const other = runner(db.kysely, offer);
    other.start();
    await expect.poll(async () => (await read('job_e')).locked_until, { timeout: 2_000 }).not.toBeNull();
    const stopped = first.stop();
    gate.open();
    await stopped;
    expect((await read('job_e')).locked_until).not.toBeNull();
    await other.stop();
    await kysely.destroy();
  });

  it('leaves a job whose poll was under way to the next instance: no settlement once stopping', async () => {
    await db.kysely.insertInto('jobs').values(row('job_c')).execute();
    const asked = gate();
    const settled: string[] = [];
    const offer = videoOffer(async () => {
      asked.arrive();
      await asked.opened;
      return { state: 'failed', message: 'runner_error' };
    });
    const first = runner(db.kysely, offer, prepaidHolds(settled));
    first.start();
    await asked.reached;
    await first.stop();
    asked.open();
    await new Promise((r) => setTimeout(r, 50));
    expect(settled).toEqual([]);
    expect(await read('job_c')).toMatchObject({ status: 'queued', locked_until: null });
  });

  it('waits for a settlement under way before it answers, so the database is not closed under it', async () => {
    await db.kysely.insertInto('jobs').values(row('job_b')).execute();
    const { kysely, gate } = gatedSqlite(db.sqlite, endsJob);
    const settled: string[] = [];
    const offer = videoOffer(async () => ({ state: 'failed', message: 'runner_error' }));
    const first = runner(kysely, offer, prepaidHolds(settled));
    first.start();
    await gate.reached;
    let stoppedAt: string | undefined;
    const stopped = first.stop().then(async () => {
      stoppedAt = (await read('job_b')).status;
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(stoppedAt).toBeUndefined();
    gate.open();
    await stopped;
    expect(settled).toEqual(['hold_1 release']);
    expect(stoppedAt).toBe('failed');
    expect(await read('job_b')).toMatchObject({ status: 'failed', locked_until: null });
    await kysely.destroy();
  });

  it('renews its lock while a status read outlasts it, so no other instance polls the job beside it', async () => {
    await db.kysely.insertInto('jobs').values(row('job_d')).execute();
    const reads: string[] = [];
    const slowRead = (who: string) =>
      videoOffer(async () => {
        reads.push(who);
        await new Promise((r) => setTimeout(r, 1_000));
        return { state: 'running' };
      });
    const first = runner(db.kysely, slowRead('first'), {}, { lockMs: 300 });
    first.start();
    await expect.poll(() => reads, { timeout: 2_000 }).toEqual(['first']);
    // Past the lock's 300 ms, within the first read's second: a second instance's scan finds the job still locked.
    await new Promise((r) => setTimeout(r, 500));
    const second = runner(db.kysely, slowRead('second'), {}, { lockMs: 300 });
    second.start();
    await new Promise((r) => setTimeout(r, 200));
    expect(reads).toEqual(['first']);
    expect(Date.parse(String((await read('job_d')).locked_until))).toBeGreaterThan(Date.now());
    await first.stop();
    await second.stop();
  });

  it('stops polling a job another instance took over, and leaves its lock alone', async () => {
    await db.kysely.insertInto('jobs').values(row('job_f')).execute();
    let reads = 0;
    const first = runner(
      db.kysely,
      videoOffer(async () => {
        reads++;
        return { state: 'running' };
      }),
    );
    first.start();
    await expect.poll(() => reads, { timeout: 2_000 }).toBeGreaterThan(2);
    // As if this instance had not reached the database for longer than its lock and another had taken the job.
    const until = new Date(Date.now() + 60_000).toISOString();
    await db.kysely
      .updateTable('jobs')
      .set({ locked_by: 'run_other', locked_until: until })
      .where('id', '=', 'job_f')
      .execute();
    const seen = reads;
    await new Promise((r) => setTimeout(r, 300));
    // At most the read under way when the job changed hands.
    expect(reads - seen).toBeLessThanOrEqual(1);
    await first.stop();
    expect(await read('job_f')).toMatchObject({ locked_by: 'run_other', locked_until: until });
  });
});
