/**
 * The batched writer of committed charges: a lease's charges, captured holds and the usage rows of voided and free
 * calls wait a few milliseconds to be written together (one statement per lease), and a failed write is retried while
 * the money stays held. A charge whose reservation the sweeper released before it was written is debited from the
 * account directly (see journal-replay.ts).
 */
import type { Db } from '../store/db.js';
import { captureHold, chargeLease, insertUsage, type LeaseCharge, type UsageInsert } from './books.js';
import type { Journal, JournalRecord } from './charge-journal.js';
import { LeaseClosedError } from './errors.js';
import { debitCharges, type LateCharge } from './journal-replay.js';
import { expiryAfter, type Lease, seeBalance } from './lease.js';

export type CaptureRecord = Extract<JournalRecord, { k: 'capture' }>;

/** Told when charges could not be written (they are retried) or were lost with a swept lease. */
export type WriteErrorHandler = (
  err: unknown,
  detail: { leaseId: string; calls: number; microUsd: number },
) => void;

export interface ChargeWriterOptions {
  journal: Journal | undefined;
  onWriteError: WriteErrorHandler | undefined;
  ttlSeconds: number;
  /** Told when the sweeper released a lease under this instance: it must not be used again. */
  onLeaseClosed: (lease: Lease) => void;
}

/**
 * How long a charge waits to be written with others (its journal line holds it meanwhile). Each write is one
 * commit whatever the number of charges in it, so under load a longer wait means fewer commits per call.
 */
const WRITE_DELAY_MS = 20;
const WRITE_RETRY_MS = 250;

export class ChargeWriter {
  private charges = new Map<Lease, LeaseCharge[]>();
  private captures: CaptureRecord[] = [];
  private usages: UsageInsert[] = [];
  private writeTimer: NodeJS.Timeout | undefined;
  private readonly writing = new Set<Promise<void>>();
  private retrying = 0;

  constructor(
    private readonly db: Db,
    private readonly options: ChargeWriterOptions,
  ) {}

  /** Queues a committed lease charge's write. */
  queueCharge(lease: Lease, charge: LeaseCharge): void {
    const queue = this.charges.get(lease);
    if (queue) queue.push(charge);
    else this.charges.set(lease, [charge]);
    this.scheduleWrite();
  }

  /** Queues a captured hold's write. */
  queueCapture(capture: CaptureRecord): void {
    this.captures.push(capture);
    this.scheduleWrite();
  }

  /** Queues the usage row of a call that moved no money (a voided call, or a free one). */
  queueUsage(usage: UsageInsert): void {
    this.usages.push(usage);
    this.scheduleWrite();
  }

  /** Writes every charge and usage row taken so far (retrying failed writes, until `deadline`) and waits. */
  async flush(deadline = Number.POSITIVE_INFINITY): Promise<void> {
    while (Date.now() < deadline) {
      if (this.charges.size > 0 || this.captures.length > 0 || this.usages.length > 0) this.write();
      if (this.writing.size > 0) await Promise.all(this.writing);
      else if (this.retrying > 0) await new Promise((r) => setTimeout(r, WRITE_RETRY_MS));
      else return;
    }
  }

  private get journal(): Journal | undefined {
    return this.options.journal;
  }

  private scheduleWrite(): void {
    if (this.writeTimer) return;
    // Nobody waits for these writes, so they wait a little to gather: one commit per few milliseconds
    // rather than one per event-loop turn is most of what billing costs under load.
    this.writeTimer = setTimeout(() => this.write(), WRITE_DELAY_MS).unref();
  }

  /**
   * Writes what is queued: one statement per lease for charges, one per captured hold, one for the usage rows of
   * calls that moved no money.
   */
  private write(): void {
    clearTimeout(this.writeTimer);
    this.writeTimer = undefined;
    const charges = this.charges;
    const captures = this.captures;
    const usages = this.usages;
    this.charges = new Map();
    this.captures = [];
    this.usages = [];
    for (const [lease, items] of charges) this.track(this.writeCharges(lease, items));
    for (const capture of captures) this.track(this.writeCapture(capture));
    if (usages.length > 0) {
      this.track(
        insertUsage(this.db, usages).catch((err: unknown) => {
          this.options.onWriteError?.(err, { leaseId: '', calls: usages.length, microUsd: 0 });
          this.retry(() => this.usages.push(...usages));
        }),
      );
    }
  }

  private track(write: Promise<void>): void {
    this.writing.add(write);
    void write.finally(() => this.writing.delete(write));
  }

  private retry(requeue: () => void): void {
    this.retrying++;
    setTimeout(() => {
      this.retrying--;
      requeue();
      this.scheduleWrite();
    }, WRITE_RETRY_MS).unref();
  }

  private async writeCharges(lease: Lease, items: LeaseCharge[]): Promise<void> {
    const total = items.reduce((sum, c) => sum + c.amountMicroUsd, 0);
    const ids = items.map((c) => c.chargeId);
    try {
      const after = await chargeLease(
        this.db,
        lease.id,
        items,
        expiryAfter(new Date(), this.options.ttlSeconds),
      );
      lease.unwritten -= total;
      lease.inFlight -= total;
      seeBalance(lease, after);
      this.journal?.settled('charge', ids);
    } catch (err) {
      if (err instanceof LeaseClosedError) {
        // The sweeper released the lease under a live instance (it went unrenewed past its TTL): the money is
        // back on the account, and these answered calls are debited from it directly.
        lease.unwritten -= total;
        lease.inFlight -= total;
        this.options.onLeaseClosed(lease);
        await this.debitLate(
          items.map((c) => ({
            id: c.chargeId,
            account: lease.accountId,
            amount: c.amountMicroUsd,
            usage: c.usage,
          })),
          lease.id,
        );
        this.journal?.settled('charge', ids);
        return;
      }
      this.options.onWriteError?.(err, { leaseId: lease.id, calls: items.length, microUsd: total });
      // The money stays held in the lease meanwhile, so it cannot be spent twice.
      this.retry(() => {
        const queue = this.charges.get(lease);
        if (queue) queue.unshift(...items);
        else this.charges.set(lease, items);
      });
    }
  }

  private async writeCapture(capture: CaptureRecord): Promise<void> {
    try {
      const settled = await captureHold(this.db, capture.hold, capture.usage);
      if (!settled.applied && settled.status === 'released') {
        // Released by the sweeper before its charge was written: the money went back, take it from there.
        await this.debitLate([{ id: capture.hold, ...capture }], capture.hold);
      }
      this.journal?.settled('capture', [capture.hold]);
      this.journal?.settled('hold', [capture.hold]);
    } catch (err) {
      this.options.onWriteError?.(err, { leaseId: capture.hold, calls: 1, microUsd: capture.amount });
      this.retry(() => this.captures.push(capture));
    }
  }

  /** Debits answered calls whose reservation was released before their charge was written (see debitCharges). */
  private async debitLate(charges: LateCharge[], reservationId: string): Promise<void> {
    const { lost } = await debitCharges(this.db, charges);
    if (lost.length > 0) {
      const microUsd = lost.reduce((sum, c) => sum + c.amount, 0);
      this.options.onWriteError?.(new LeaseClosedError(reservationId), {
        leaseId: reservationId,
        calls: lost.length,
        microUsd,
      });
    }
  }
}
