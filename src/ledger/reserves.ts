/**
 * The prepaid books' front: reserves a call's money, then charges or returns it. Most calls are served from a
 * balance lease: this instance reserves a slice of an account's balance in the database once (a hold of kind
 * 'lease'), then serves many calls from it in memory, so a call's reservation is a subtraction, not a database
 * write. A key with a spend cap (bounded per key, which a per-account lease cannot do), or every call when leases
 * are off, places a hold of its own instead.
 *
 * A charge becomes durable in two steps. capture() takes it (the receipt states the balance after it); commit(),
 * called right before the answer's last bytes are handed to the operating system, writes it to the charge journal
 * (a local file, charge-journal.ts, or with a shared PostgreSQL database a row committed there, pg-journal.ts) and queues
 * its database write, batched with every other charge taken within a few milliseconds (one statement per lease).
 * A process that dies before the batch is written leaves the charge in the journal, and the next start replays it:
 * every answered call is charged once, and a call whose answer never left is not (see journal-replay.ts).
 *
 * Safety rests on the database, not on memory: a lease is an ordinary hold, so the account can never spend
 * more than its balance across any number of instances, and a lease left by a dead instance is released when its
 * journal is replayed (or by the sweeper, after its TTL, if no instance ever replays it).
 * Near the end of a balance, grants are only what a call lacks (see leaseSize), and an idle lease goes back
 * after `idleMs`, so money one instance is not using does not stay out of other instances' reach.
 *
 * Written here rather than taken from a library: no payment library does balance leasing over a SQL ledger.
 */
import type { Db } from '../store/db.js';
import {
  type Balance,
  captureHold,
  chargeLease,
  grantLease,
  insertUsage,
  type LeaseCharge,
  placeHold,
  releaseHold,
  type UsageInsert,
} from './books.js';
import type { Journal, JournalRecord } from './charge-journal.js';
import { InsufficientBalanceError, LeaseClosedError } from './errors.js';
import { newId } from './ids.js';
import { debitCharges, type LateCharge } from './journal-replay.js';

export interface LeaseOptions {
  /** Told when charges could not be written (they are retried) or were lost with a swept lease. */
  onWriteError?: (err: unknown, detail: { leaseId: string; calls: number; microUsd: number }) => void;
  /** The most one grant takes from an account; 0 = no leases, every call places a hold of its own. */
  maxMicroUsd: number;
  /** A lease unused this long goes back to the account. */
  idleMs: number;
  /** How long a lease or hold outlives its last use if this instance dies unreplayed (the sweeper then releases it). */
  ttlSeconds: number;
  /** Where charges are recorded before their answers leave (none: a process that dies loses unwritten charges). */
  journal?: Journal;
}

/** The call a reservation is for. */
export interface ReservedCall {
  keyId: string | null;
  /** The key has a spend cap: the call places a hold of its own, which moves the key's counters. */
  keySpendCapped?: boolean;
  offerId: string;
  requestId: string;
}

/** A charge taken: the balance the receipt states, and how to make it durable. */
export interface Capture {
  balance: Balance;
  /**
   * Records the charge in the journal and queues its database write. Call it right before the answer's last bytes
   * are written (once; later calls do nothing): a call whose answer never left is then never charged. With the file
   * journal it returns nothing, and the write must follow in the same synchronous run; with the PostgreSQL journal
   * it returns the promise of the row's commit, which the write must wait for.
   */
  commit(): void | Promise<void>;
}

/** One call's money, reserved until it is captured or released. */
export interface Reservation {
  readonly id: string;
  readonly amountMicroUsd: number;
  /** The balance the account will have once this call is charged (as this instance knows it). */
  readonly balanceAfterCharge: number;
  capture(usage: UsageInsert): Promise<Capture>;
  release(usage: UsageInsert): Promise<Balance>;
}

type CaptureRecord = Extract<JournalRecord, { k: 'capture' }>;

interface Lease {
  accountId: string;
  id: string;
  /** Whether the lease row exists yet. */
  opened: boolean;
  /** Leased and not reserved by a running call. */
  unused: number;
  /** Reserved by running calls (their charges not yet written). */
  inFlight: number;
  /** The account's balance as last read or written by this instance, before `unwritten`. */
  balance: number;
  held: number;
  /** Charged to callers, not yet written (still inside `inFlight`). */
  unwritten: number;
  lastUsed: number;
  growing: Promise<void> | null;
  closed: boolean;
}

/**
 * How long a charge waits to be written with others (its journal line holds it meanwhile). Each write is one
 * commit whatever the number of charges in it, so under load a longer wait means fewer commits per call.
 */
const WRITE_DELAY_MS = 20;
const WRITE_RETRY_MS = 250;
/** How long shutdown keeps trying to write pending charges (a database that stays down loses them). */
const CLOSE_FLUSH_MS = 5000;

export class Reserves {
  private readonly leases = new Map<string, Lease>();
  private charges = new Map<Lease, LeaseCharge[]>();
  private captures: CaptureRecord[] = [];
  private usages: UsageInsert[] = [];
  private writeTimer: NodeJS.Timeout | undefined;
  private readonly writing = new Set<Promise<void>>();
  private readonly timer: NodeJS.Timeout;
  private retrying = 0;

  constructor(
    private readonly db: Db,
    private readonly options: LeaseOptions,
  ) {
    this.timer = setInterval(
      () => void this.returnIdle(this.options.idleMs),
      Math.max(50, options.idleMs / 2),
    );
    this.timer.unref();
  }

  /**
   * Reserves `amount` for one call; throws InsufficientBalanceError (or SpendCapExceededError) when the account
   * (or the key) cannot cover it.
   */
  async reserve(accountId: string, amount: number, call: ReservedCall): Promise<Reservation> {
    if (this.options.maxMicroUsd <= 0 || call.keySpendCapped) return this.holdOwn(accountId, amount, call);
    for (;;) {
      const lease = this.leaseOf(accountId);
      if (lease.unused >= amount) {
        lease.unused -= amount;
        lease.inFlight += amount;
        lease.lastUsed = Date.now();
        return this.reservation(lease, amount);
      }
      const shared = lease.growing;
      try {
        // Grants need only cover what the lease lacks: remainders of earlier grants count.
        await (shared ?? this.grow(lease, amount - lease.unused, call.requestId));
      } catch (err) {
        // A swept lease is replaced by a fresh one. Another call's grant failing decides for us too, unless
        // it needed more than we do.
        if (err instanceof LeaseClosedError) continue;
        if (!(err instanceof InsufficientBalanceError)) throw err;
        const available = err.available + lease.unused;
        if (shared && available >= amount) continue;
        throw new InsufficientBalanceError(amount, available, err.balance);
      }
    }
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

  /** Returns every lease no call is using (all of them once requests have drained), after writing charges. */
  async returnUnused(): Promise<void> {
    await this.flush();
    await this.returnIdle(0);
  }

  /** Returns one account's lease unless a call is using it (before a debit, say, which leases would block). */
  async returnAccount(accountId: string): Promise<void> {
    await this.flush();
    const lease = this.leases.get(accountId);
    if (lease) await this.returnIdle(0, [lease]);
  }

  /**
   * The balance as the account's owner should see it: this instance's unused lease is not money held for a
   * call, so it counts as available. (Other instances' leases still show as held.)
   */
  view(balance: Balance): Balance {
    const unused = this.leases.get(balance.accountId)?.unused ?? 0;
    const heldMicroUsd = balance.heldMicroUsd - unused;
    return { ...balance, heldMicroUsd, availableMicroUsd: balance.balanceMicroUsd - heldMicroUsd };
  }

  /**
   * The account's balance as this instance's receipts state it (charges taken but not yet written included),
   * without a database read; null when this instance holds no lease for the account.
   */
  receiptBalance(accountId: string): Balance | null {
    const lease = this.leases.get(accountId);
    return lease?.opened ? this.balanceOf(lease) : null;
  }

  /** Stops the idle timer, writes what is pending and returns what is unused; call after the server drained. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush(Date.now() + CLOSE_FLUSH_MS);
    await this.returnIdle(0);
  }

  private leaseOf(accountId: string): Lease {
    let lease = this.leases.get(accountId);
    if (!lease) {
      lease = {
        accountId,
        id: newId('lease'),
        opened: false,
        unused: 0,
        inFlight: 0,
        balance: 0,
        held: 0,
        unwritten: 0,
        lastUsed: Date.now(),
        growing: null,
        closed: false,
      };
      this.leases.set(accountId, lease);
    }
    return lease;
  }

  private grow(lease: Lease, min: number, requestId: string): Promise<void> {
    const growing = (async () => {
      const now = new Date();
      // Journalled first: if this process dies once the lease exists, the replay releases it at once.
      if (!lease.opened) this.journal?.append({ k: 'lease', lease: lease.id, account: lease.accountId });
      try {
        const { balance, grantedMicroUsd } = await grantLease(this.db, {
          leaseId: lease.id,
          isNew: !lease.opened,
          accountId: lease.accountId,
          minMicroUsd: min,
          maxMicroUsd: this.options.maxMicroUsd,
          entryKey: `hold:${newId('lease')}`,
          requestId,
          now: now.toISOString(),
          expiresAt: this.expiry(now),
        });
        lease.opened = true;
        lease.unused += grantedMicroUsd;
        this.see(lease, balance);
      } catch (err) {
        if (err instanceof LeaseClosedError) this.forget(lease);
        throw err;
      } finally {
        lease.growing = null;
      }
    })();
    lease.growing = growing;
    return growing;
  }

  private get journal(): Journal | undefined {
    return this.options.journal;
  }

  private reservation(lease: Lease, amount: number): Reservation {
    const id = newId('chg');
    return {
      id,
      amountMicroUsd: amount,
      balanceAfterCharge: lease.balance - lease.unwritten - amount,
      capture: async (usage) => {
        lease.unwritten += amount;
        lease.lastUsed = Date.now();
        let committed = false;
        return {
          balance: this.balanceOf(lease),
          commit: () => {
            if (committed) return;
            committed = true;
            const durable = this.journal?.append({
              k: 'charge',
              lease: lease.id,
              account: lease.accountId,
              id,
              amount,
              usage,
            });
            this.queueCharge(lease, { chargeId: id, amountMicroUsd: amount, usage });
            return durable;
          },
        };
      },
      release: async (usage) => {
        lease.inFlight -= amount;
        if (!lease.closed) lease.unused += amount;
        this.usages.push(usage);
        this.scheduleWrite();
        return this.balanceOf(lease);
      },
    };
  }

  /** A call's money in a database hold of its own: one write to reserve, one (queued, as a lease's) to charge. */
  private async holdOwn(accountId: string, amount: number, call: ReservedCall): Promise<Reservation> {
    const holdId = newId('hold');
    this.journal?.append({ k: 'hold', hold: holdId, account: accountId });
    let placed: Awaited<ReturnType<typeof placeHold>>;
    try {
      placed = await placeHold(this.db, {
        holdId,
        accountId,
        keyId: call.keyId,
        keySpendCapped: call.keySpendCapped ?? false,
        amountMicroUsd: amount,
        offerId: call.offerId,
        requestId: call.requestId,
        ttlSeconds: this.options.ttlSeconds,
      });
    } catch (err) {
      this.journal?.settled('hold', [holdId]);
      throw err;
    }
    const after = placed.balance;
    return {
      id: holdId,
      amountMicroUsd: amount,
      balanceAfterCharge: after.balanceMicroUsd - amount,
      capture: async (usage) => {
        let committed = false;
        return {
          // As this instance knows it: the hold's amount leaves both the balance and what is held.
          balance: {
            accountId,
            balanceMicroUsd: after.balanceMicroUsd - amount,
            heldMicroUsd: after.heldMicroUsd - amount,
            availableMicroUsd: after.availableMicroUsd,
          },
          commit: () => {
            if (committed) return;
            committed = true;
            const record: CaptureRecord = { k: 'capture', hold: holdId, account: accountId, amount, usage };
            const durable = this.journal?.append(record);
            this.captures.push(record);
            this.scheduleWrite();
            return durable;
          },
        };
      },
      release: async (usage) => {
        const settled = await releaseHold(this.db, holdId, usage);
        this.journal?.settled('hold', [holdId]);
        return settled.balance;
      },
    };
  }

  /** Queues a committed charge's write (see scheduleWrite). */
  private queueCharge(lease: Lease, charge: LeaseCharge): void {
    const queue = this.charges.get(lease);
    if (queue) queue.push(charge);
    else this.charges.set(lease, [charge]);
    this.scheduleWrite();
  }

  private scheduleWrite(): void {
    if (this.writeTimer) return;
    // Nobody waits for these writes, so they wait a little to gather: one commit per few milliseconds
    // rather than one per event-loop turn is most of what billing costs under load.
    this.writeTimer = setTimeout(() => this.write(), WRITE_DELAY_MS).unref();
  }

  /**
   * Writes what is queued: one statement per lease for charges, one per captured hold, one for voided calls'
   * usage rows.
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
      const after = await chargeLease(this.db, lease.id, items, this.expiry(new Date()));
      lease.unwritten -= total;
      lease.inFlight -= total;
      this.see(lease, after);
      this.journal?.settled('charge', ids);
    } catch (err) {
      if (err instanceof LeaseClosedError) {
        // The sweeper released the lease under a live instance (it went unrenewed past its TTL): the money is
        // back on the account, and these answered calls are debited from it directly.
        lease.unwritten -= total;
        lease.inFlight -= total;
        this.forget(lease);
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

  private async returnIdle(idleMs: number, leases: Iterable<Lease> = this.leases.values()): Promise<void> {
    const now = Date.now();
    const returning: Promise<unknown>[] = [];
    for (const lease of [...leases]) {
      if (lease.inFlight > 0 || lease.growing || now - lease.lastUsed < idleMs) continue;
      this.forget(lease);
      // Releases what is left of the lease (amount − used): the unused part goes back to the account.
      if (!lease.opened) this.journal?.settled('lease', [lease.id]);
      else
        returning.push(
          releaseHold(this.db, lease.id).then(
            () => this.journal?.settled('lease', [lease.id]),
            () => {},
          ),
        );
    }
    await Promise.all(returning);
  }

  private forget(lease: Lease): void {
    lease.closed = true;
    if (this.leases.get(lease.accountId) === lease) this.leases.delete(lease.accountId);
  }

  private see(lease: Lease, balance: Balance): void {
    lease.balance = balance.balanceMicroUsd;
    lease.held = balance.heldMicroUsd;
  }

  /** The account as it stands once this instance's unwritten charges are written. */
  private balanceOf(lease: Lease): Balance {
    const balance = lease.balance - lease.unwritten;
    const held = lease.held - lease.unwritten;
    return {
      accountId: lease.accountId,
      balanceMicroUsd: balance,
      heldMicroUsd: held,
      availableMicroUsd: balance - held,
    };
  }

  private expiry(now: Date): string {
    return new Date(now.getTime() + this.options.ttlSeconds * 1000).toISOString();
  }
}
