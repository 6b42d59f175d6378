/**
 * Async jobs: a paid call sent with `Prefer: respond-async`, on an offer that can run as a job and a rail whose
 * payment can outlive the process (a database hold), is submitted upstream, recorded in the `jobs` table and
 * answered `202 { job_id, status, status_url }`. A runner polls each open job with backoff (one instance at a time,
 * by a lock in the row naming the instance, renewed while it polls, so another instance or a restarted one picks it
 * up once that instance is gone) until it ends, then settles exactly once: capture on success (the result, stored,
 * is the body the synchronous call would have answered), release on failure or past the deadline (the upstream job
 * is then cancelled). `GET /v1/jobs/{id}` reads the row: any
 * instance can answer it; the id is 128 random bits.
 * One idea, though long: a job's life in its row, from submission through polling to its one settlement; every
 * step takes the same row lock, so they stay together.
 */
import { randomBytes } from 'node:crypto';
import type { Quote } from '../catalog/types.js';
import { CallAbort } from '../http/call-signal.js';
import { ApiError } from '../http/errors.js';
import type { Exchange } from '../http/exchange.js';
import type { Logger } from '../http/logger.js';
import type { RailRegistry } from '../rails/registry.js';
import type { JobHolds, PaidRequest, Payer, Pricing, RailReceipt } from '../rails/types.js';
import type { Db } from '../store/db.js';
import type { JobStatus, JobTable } from '../store/schema.js';
import { paidAnswer } from './answer.js';
import type { Offer, OfferJob } from './offer.js';
import { runFailure } from './upstream-errors.js';

export interface JobSettings {
  /** First wait between status reads; 1.5× longer each time, up to `pollMaxMs`. */
  pollFirstMs: number;
  pollMaxMs: number;
  /** A job still running this long after it was submitted is given up. */
  deadlineMs: number;
  /**
   * A submit unanswered this long is given up (aborted, its hold released, nothing charged); an instance that dies
   * mid-submit leaves its job to be ended this long (plus a poll lock) after it began.
   */
  submitMs: number;
  /** How long a job stays locked to the instance polling it unless renewed (30 s by default; see LOCK_MS). */
  lockMs?: number;
}

export interface JobRunnerDeps {
  db: Db;
  log: Logger;
  rails: RailRegistry;
  /** The offer of a catalog id (the job table names offers by id). */
  offerOf(offerId: string): Offer | undefined;
  publicBaseUrl: string;
  settings: JobSettings;
}

/** True when the request asks for an async answer (RFC 7240 `Prefer: respond-async`). */
export function wantsAsync(x: Exchange): boolean {
  return /(^|[,\s])respond-async(\s*[,;]|\s*$)/i.test(x.header('prefer') ?? '');
}

/** How a job ended, as its settlement needs it. */
type Ending = { kind: 'succeeded'; body: Record<string, unknown> } | { kind: 'failed'; error: ApiError };

/**
 * How long one instance keeps a job to itself unless it renews the lock, which it does every third of that while it
 * drives the job (waits between polls, status reads and the result's download included), so a job changes hands only
 * once its instance is gone.
 */
const LOCK_MS = 30_000;
/** The states in which a job's money is still held and someone must settle it. */
const OPEN: JobStatus[] = ['submitting', 'queued', 'running'];
/** How often the runner looks for open jobs nobody is polling (after a restart, or a dead instance's). */
const SCAN_MS = 5_000;

export class JobRunner {
  /** The jobs this instance polls (or is about to). */
  private readonly driving = new Set<string>();
  /** This runner's name in the rows whose lock it holds (`locked_by`). */
  private readonly me = `run_${randomBytes(12).toString('hex')}`;
  /** Statements under way that lock or settle a job: stop() lets them land before it lets go of the jobs. */
  private readonly writes = new Set<Promise<unknown>>();
  private readonly stopping = new CallAbort();
  private timer: NodeJS.Timeout | undefined;
  private readonly lockMs: number;

  constructor(private readonly deps: JobRunnerDeps) {
    this.lockMs = deps.settings.lockMs ?? LOCK_MS;
  }

  /** Starts looking for open jobs nobody is polling, now and every few seconds. */
  start(): void {
    const scan = () =>
      void this.adoptOrphans().catch((err) => this.deps.log.error({ err }, 'job scan failed'));
    scan();
    this.timer = setInterval(scan, SCAN_MS);
    this.timer.unref();
  }

  /**
   * Stops polling and lets go of this instance's jobs, so another instance (or this one, restarted) takes them up at
   * once; an instance that dies without stopping leaves its locks to lapse.
   */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.stopping.abort();
    // A lock already on its way to the database would land after the release below and keep the job from every
    // other instance for lockMs; a settlement under way would be cut off by the database closing. Both finish first.
    await Promise.allSettled([...this.writes]);
    await this.deps.db.kysely
      .updateTable('jobs')
      .set({ locked_until: null, locked_by: null })
      .where('locked_by', '=', this.me)
      .where('status', 'in', ['queued', 'running'])
      .execute()
      .catch(() => {});
  }

  /**
   * Submits `offer`'s job for `input` on `rail`'s hold and answers 202. A refused hold answers like a refused
   * payment; a failed submit releases the hold and answers the failure (nothing charged).
   *
   * The job's row is written before the submit, as `submitting` and locked for the submit's time, so the hold is
   * never out of the table: should this instance die mid-submit, a scan (here or elsewhere) finds the row once its
   * lock lapses and releases the hold (the caller never got a job id; the upstream's answer, if any, is lost),
   * `submitMs` plus a poll lock after the submit began rather than at the hold's TTL.
   */
  async start202(
    x: Exchange,
    req: PaidRequest,
    offer: Offer,
    job: OfferJob,
    rail: { id: string; jobs: JobHolds },
    payer: Payer,
    pricing: Pricing,
    input: Record<string, unknown>,
  ): Promise<Response> {
    const { settings } = this.deps;
    // The hold outlives the deadline by a margin, so the sweeper never releases a job still being settled.
    const ttlSeconds = Math.ceil(settings.deadlineMs / 1000) + 600;
    const hold = await rail.jobs.hold(payer, pricing, req, ttlSeconds);
    const now = new Date();
    const row: JobTable = {
      id: `job_${randomBytes(16).toString('hex')}`,
      offer_id: offer.entry.id,
      rail: rail.id,
      account_id: payer.accountId,
      key_id: payer.keyId,
      hold_id: hold.holdId,
      amount_micro_usd: pricing.quote.costMicroUsd,
      request_id: x.requestId,
      handle: 'null',
      status: 'submitting',
      result: null,
      error: null,
      created_at: now.toISOString(),
      deadline_at: new Date(now.getTime() + settings.deadlineMs).toISOString(),
      locked_until: new Date(now.getTime() + settings.submitMs + this.lockMs).toISOString(),
      locked_by: this.me,
      finished_at: null,
    };
    const { id } = row;
    try {
      await this.deps.db.kysely.insertInto('jobs').values(row).execute();
    } catch (err) {
      // Not recorded, so nobody would ever settle it: give the money back now.
      await rail.jobs.settle(hold.holdId, 'release', payer, {
        ...this.usage(x.requestId, offer.entry.id, pricing.quote, now.getTime()),
        httpStatus: 500,
        errorCode: 'internal_error',
      });
      throw err;
    }
    let handle: Record<string, unknown>;
    const abort = new CallAbort();
    const giveUp = setTimeout(() => abort.abort(), settings.submitMs);
    try {
      handle = await job.submit(input, { signal: abort, requestId: x.requestId, quote: pricing.quote });
    } catch (err) {
      const failure = abort.aborted
        ? new ApiError(
            'upstream_timeout',
            `the upstream did not take the job within ${settings.submitMs} ms; nothing was charged`,
          )
        : runFailure(err);
      // Ended like any job (finish: a hold settled twice changes nothing, a row ended twice is left as it is).
      const receipt = await this.finish(row, { kind: 'failed', error: failure });
      throw new ApiError(failure.code, failure.message, failure.details, receipt.headers);
    } finally {
      clearTimeout(giveUp);
    }
    const queued = await this.track(
      this.deps.db.kysely
        .updateTable('jobs')
        .set({
          handle: JSON.stringify(handle),
          status: 'queued',
          locked_until: new Date(Date.now() + this.lockMs).toISOString(),
        })
        .where('id', '=', id)
        .where('status', '=', 'submitting')
        .executeTakeFirst()
        .then((r) => Number(r.numUpdatedRows) === 1)
        .catch(() => false),
    );
    if (!queued) {
      // Ended meanwhile (taken for a dead instance's) or not recorded: stop the upstream's work; the money is (or is
      // now) given back.
      void job.cancel?.(handle).catch(() => {});
      const failure = new ApiError('internal_error', 'the job could not be recorded; nothing was charged');
      const receipt = await this.finish(row, { kind: 'failed', error: failure });
      throw new ApiError(failure.code, failure.message, undefined, receipt.headers);
    }
    void this.drive(id, true);
    const body = { job_id: id, status: 'queued', status_url: `${this.deps.publicBaseUrl}/v1/jobs/${id}` };
    return x.send(202, JSON.stringify(body), { 'content-type': 'application/json', ...hold.headers });
  }

  /** The job's state as `GET /v1/jobs/{id}` answers it, or null when there is no such job. */
  async status(id: string): Promise<Record<string, unknown> | null> {
    const row = await this.deps.db.kysely
      .selectFrom('jobs')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return null;
    // A job is `submitting` only before its id is given out; to a reader it is queued.
    const status = row.status === 'submitting' ? 'queued' : row.status;
    const body: Record<string, unknown> = { job_id: row.id, status };
    if (row.result) body.result = JSON.parse(row.result);
    if (row.error) body.error = JSON.parse(row.error);
    return body;
  }

  /**
   * The body the synchronous call would have answered (paidAnswer): the media routes nest a model's output under
   * `output`; the recipe route puts a recipe's steps and final link beside its id.
   */
  private stamped(row: JobTable, body: Record<string, unknown>, receipt: Record<string, unknown>) {
    const entry = this.deps.offerOf(row.offer_id)?.entry;
    if (!entry)
      throw new Error(`job ${row.id} finished for ${row.offer_id}, which this server does not sell`);
    return paidAnswer(entry, row.amount_micro_usd, body, receipt, entry.kind !== 'recipe');
  }

  private usage(requestId: string, offerId: string, quote: Quote, started: number) {
    return {
      requestId,
      offerId,
      quoteMicroUsd: quote.costMicroUsd,
      httpStatus: 200,
      latencyMs: Math.round(Date.now() - started),
      errorCode: null,
    };
  }

  /** Takes over open jobs whose lock has lapsed. */
  private async adoptOrphans(): Promise<void> {
    if (this.stopping.aborted) return;
    const rows = await this.deps.db.kysely
      .selectFrom('jobs')
      .select('id')
      .where('status', 'in', OPEN)
      .where((eb) =>
        eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', new Date().toISOString())]),
      )
      .limit(100)
      .execute();
    for (const { id } of rows) if (!this.driving.has(id)) void this.drive(id);
  }

  /** Counts `write` among the statements stop() waits for. */
  private track<T>(write: Promise<T>): Promise<T> {
    this.writes.add(write);
    const landed = () => this.writes.delete(write);
    write.then(landed, landed);
    return write;
  }

  /**
   * Locks the job for this instance if nobody holds it, or (`mine`) renews this instance's own lock, which is refused
   * once another instance has taken the job over; never once the instance is stopping.
   */
  private async lock(id: string, mine: boolean): Promise<boolean> {
    if (this.stopping.aborted) return false;
    const now = new Date();
    const q = this.deps.db.kysely
      .updateTable('jobs')
      .set({ locked_until: new Date(now.getTime() + this.lockMs).toISOString(), locked_by: this.me })
      .where('id', '=', id)
      .where('status', 'in', OPEN)
      .where((eb) =>
        mine
          ? eb('locked_by', '=', this.me)
          : eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now.toISOString())]),
      );
    const r = await this.track(q.executeTakeFirst());
    return Number(r.numUpdatedRows) === 1;
  }

  /** Polls one job until it ends (or this instance stops), then settles it. */
  private async drive(id: string, fresh = false): Promise<void> {
    if (this.driving.has(id)) return;
    this.driving.add(id);
    let renew: NodeJS.Timeout | undefined;
    try {
      // A job this instance just submitted is locked by it already; any other only once its lock has lapsed.
      if (!(await this.lock(id, fresh))) return;
      // The lock is renewed by this timer alone, whatever the job is waiting on. A failed renewal is not the job's
      // failure: the next one may do; should the lock lapse and another instance take the job, the next read of its
      // row says so.
      renew = setInterval(() => void this.lock(id, true).catch(() => {}), this.lockMs / 3);
      renew.unref();
      let wait = this.deps.settings.pollFirstMs;
      for (;;) {
        if (this.stopping.aborted) return;
        const row = await this.deps.db.kysely
          .selectFrom('jobs')
          .selectAll()
          .where('id', '=', id)
          .executeTakeFirst();
        if (!row || !OPEN.includes(row.status) || row.locked_by !== this.me || this.stopping.aborted) return;
        if (row.status === 'submitting') {
          // Its submitter's lock lapsed mid-submit (the instance died): the caller never got the job's id, and
          // there is no upstream handle to poll; give the money back.
          await this.finish(row, {
            kind: 'failed',
            error: new ApiError(
              'upstream_error',
              'the job was cut off while being submitted; nothing was charged',
            ),
          });
          return;
        }
        const offer = this.deps.offerOf(row.offer_id);
        if (!offer?.job) {
          await this.finish(row, {
            kind: 'failed',
            error: new ApiError('not_configured', `${row.offer_id} cannot run here`),
          });
          return;
        }
        const handle = JSON.parse(row.handle) as Record<string, unknown>;
        if (new Date(row.deadline_at).getTime() <= Date.now()) {
          void offer.job.cancel?.(handle).catch(() => {});
          await this.finish(row, {
            kind: 'failed',
            error: new ApiError('upstream_timeout', 'the job did not finish in time; nothing was charged'),
          });
          return;
        }
        const outcome = await this.poll(offer.job, handle);
        // Stopped meanwhile: the next instance reads the job's state again and settles it (not this one, whose
        // database may be closing).
        if (this.stopping.aborted) return;
        if (outcome.kind === 'pending') {
          if (outcome.state !== row.status)
            await this.deps.db.kysely
              .updateTable('jobs')
              .set({ status: outcome.state })
              .where('id', '=', id)
              .execute();
          await new Promise((r) => setTimeout(r, wait));
          wait = Math.min(this.deps.settings.pollMaxMs, Math.ceil(wait * 1.5));
          continue;
        }
        await this.finish(row, outcome);
        return;
      }
    } catch (err) {
      // Left open: the lock lapses and a scan (here or elsewhere) takes the job up again.
      this.deps.log.error({ err, job: id }, 'polling a job failed');
    } finally {
      clearInterval(renew);
      this.driving.delete(id);
    }
  }

  private async poll(
    job: OfferJob,
    handle: Record<string, unknown>,
  ): Promise<Ending | { kind: 'pending'; state: 'queued' | 'running' }> {
    const signal = new CallAbort();
    try {
      const state = await job.status(handle, signal);
      if (state.state === 'queued' || state.state === 'running')
        return { kind: 'pending', state: state.state };
      if (state.state === 'failed') {
        const code = state.callerFault ? 'invalid_input' : 'upstream_error';
        return {
          kind: 'failed',
          error: new ApiError(code, `the job failed: ${state.message}; nothing was charged`),
        };
      }
      return { kind: 'succeeded', body: await job.result(handle, signal) };
    } catch (err) {
      return { kind: 'failed', error: runFailure(err) };
    }
  }

  /** settle(), counted among the writes stop() waits for. */
  private finish(row: JobTable, outcome: Ending): Promise<RailReceipt> {
    return this.track(this.settle(row, outcome));
  }

  /**
   * Settles the job's hold and records its end; a job another instance already ended is left as it is. Returns the
   * settlement's receipt.
   */
  private async settle(row: JobTable, outcome: Ending): Promise<RailReceipt> {
    const rail = this.deps.rails.all().find((r) => r.id === row.rail);
    if (!rail?.jobs) throw new Error(`rail ${row.rail} of job ${row.id} is not enabled`);
    const payer = { accountId: row.account_id, keyId: row.key_id };
    const facts = {
      requestId: row.request_id,
      offerId: row.offer_id,
      quoteMicroUsd: row.amount_micro_usd,
      httpStatus: outcome.kind === 'succeeded' ? 200 : outcome.error.status,
      latencyMs: Date.now() - new Date(row.created_at).getTime(),
      errorCode: outcome.kind === 'succeeded' ? null : outcome.error.code,
    };
    const receipt = await rail.jobs.settle(
      row.hold_id,
      outcome.kind === 'succeeded' ? 'capture' : 'release',
      payer,
      facts,
    );
    const finished = new Date().toISOString();
    const update =
      outcome.kind === 'succeeded' && receipt.charged
        ? {
            status: 'succeeded' as const,
            result: JSON.stringify(this.stamped(row, outcome.body, receipt.receipt)),
          }
        : {
            status: 'failed' as const,
            error: JSON.stringify(
              (outcome.kind === 'failed'
                ? outcome.error
                : new ApiError('upstream_timeout', 'the job outlived its hold; nothing was charged')
              ).toBody().error,
            ),
          };
    await this.deps.db.kysely
      .updateTable('jobs')
      .set({ ...update, finished_at: finished, locked_until: null, locked_by: null })
      .where('id', '=', row.id)
      .where('status', 'in', OPEN)
      .execute();
    return receipt;
  }
}
