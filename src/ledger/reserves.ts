/**
 * Balance leases: this instance reserves a slice of an account's balance in the database once (a hold of
 * kind 'lease'), then serves many calls from it in memory. A call's reservation is a subtraction, not a
 * database write. Its charge is written a few milliseconds after its response, batched with every other charge
 * taken meanwhile (one ledger entry and one usage row per call, one account update per lease): the caller
 * never waits for the ledger. The money stays held in the lease until its charge is written, so nothing else
 * can spend it; a write that fails is retried, and a process that dies before writing leaves those calls
 * uncharged (never the reverse: nothing is charged that was not delivered).
 *
 * Safety rests on the database, not on memory: a lease is an ordinary hold, so the account can never spend
 * more than its balance across any number of instances, and a lease left by a crashed instance is released
 * by the sweeper like any stale hold.
 * Near the end of a balance, grants are only what a call lacks (see leaseSize), and an idle lease goes back
 * after `idleMs`, so money one instance is not using does not stay out of other instances' reach.
 *
 * Written here rather than taken from a library: no payment library does balance leasing over a SQL ledger.
 */
import type { Db } from '../store/db.js';
import {
  type Balance,
  captureHold,
  carveHold,
  chargeLease,
  grantLease,
  insertUsage,
  type LeaseCharge,
  releaseHold,
  type UsageInsert,
} from './books.js';
import { InsufficientBalanceError, LeaseClosedError } from './errors.js';
import { newId } from './ids.js';

export interface LeaseOptions {
  /** Told when charges could not be written (they are retried) or were lost with a swept lease. */
  onWriteError?: (err: unknown, detail: { leaseId: string; calls: number; microUsd: number }) => void;
  /** The most one grant takes from an account. */
  maxMicroUsd: number;
  /** A lease unused this long goes back to the account. */
  idleMs: number;
  /** How long a lease outlives its last use if this instance dies (the sweeper then releases it). */
  ttlSeconds: number;
}

/** One call's money, reserved until it is captured or released. */
export interface Reservation {
  readonly id: string;
  readonly amountMicroUsd: number;
  /** The balance the account will have once this call is charged (as this instance knows it). */
  readonly balanceAfterCharge: number;
  capture(usage: UsageInsert): Promise<Balance>;
  release(usage: UsageInsert): Promise<Balance>;
  /** Part of the result reached the caller: from here on a crash captures this call instead of releasing it. */
  markDelivered(): void;
}

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
 * How long a charge waits to be written with others; a crash in that window leaves it uncharged. Each write
 * is one commit whatever the number of charges in it, so under load a longer wait means fewer commits per call.
 */
const WRITE_DELAY_MS = 20;
const WRITE_RETRY_MS = 250;
/** How long shutdown keeps trying to write pending charges (a database that stays down loses them). */
const CLOSE_FLUSH_MS = 5000;

export class Reserves {
  private readonly leases = new Map<string, Lease>();
  private charges = new Map<Lease, LeaseCharge[]>();
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

  /** Reserves `amount` for one call; throws InsufficientBalanceError when the account cannot cover it. */
  async reserve(
    accountId: string,
    amount: number,
    call: { keyId: string | null; offerId: string; requestId: string },
  ): Promise<Reservation> {
    for (;;) {
      const lease = this.leaseOf(accountId);
      if (lease.unused >= amount) {
        lease.unused -= amount;
        lease.inFlight += amount;
        lease.lastUsed = Date.now();
        return this.reservation(lease, amount, call);
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
      if (this.charges.size > 0 || this.usages.length > 0) this.write();
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

  private reservation(
    lease: Lease,
    amount: number,
    call: { keyId: string | null; offerId: string; requestId: string },
  ): Reservation {
    const id = newId('chg');
    // Set once the call has its own hold (markDelivered): it then settles there, not through the lease.
    let ownHold: Promise<string | null> | null = null;
    return {
      id,
      amountMicroUsd: amount,
      balanceAfterCharge: lease.balance - lease.unwritten - amount,
      capture: async (usage) => {
        const holdId = ownHold ? await ownHold : null;
        if (holdId) return (await captureHold(this.db, holdId, usage)).balance;
        return this.charge(lease, { chargeId: id, amountMicroUsd: amount, usage });
      },
      release: async (usage) => {
        const holdId = ownHold ? await ownHold : null;
        if (holdId) return (await releaseHold(this.db, holdId, usage)).balance;
        lease.inFlight -= amount;
        if (!lease.closed) lease.unused += amount;
        this.usages.push(usage);
        this.scheduleWrite();
        return this.balanceOf(lease);
      },
      markDelivered: () => {
        if (ownHold) return;
        const holdId = newId('hold');
        const now = new Date();
        ownHold = carveHold(this.db, {
          holdId,
          leaseId: lease.id,
          accountId: lease.accountId,
          keyId: call.keyId,
          amountMicroUsd: amount,
          offerId: call.offerId,
          requestId: call.requestId,
          now: now.toISOString(),
          expiresAt: this.expiry(now),
        }).then(
          () => {
            lease.inFlight -= amount;
            return holdId;
          },
          // Could not carve (the database is down): the call stays on the lease, as before.
          () => null,
        );
      },
    };
  }

  /** Takes the charge now (the caller's receipt states it) and queues its write (see scheduleWrite). */
  private charge(lease: Lease, charge: LeaseCharge): Balance {
    lease.unwritten += charge.amountMicroUsd;
    lease.lastUsed = Date.now();
    const queue = this.charges.get(lease);
    if (queue) queue.push(charge);
    else this.charges.set(lease, [charge]);
    this.scheduleWrite();
    return this.balanceOf(lease);
  }

  private scheduleWrite(): void {
    if (this.writeTimer) return;
    // Nobody waits for these writes, so they wait a little to gather: one commit per few milliseconds
    // rather than one per event-loop turn is most of what billing costs under load.
    this.writeTimer = setTimeout(() => this.write(), WRITE_DELAY_MS).unref();
  }

  /** Writes what is queued: one statement per lease for charges, one for voided calls' usage rows. */
  private write(): void {
    clearTimeout(this.writeTimer);
    this.writeTimer = undefined;
    const charges = this.charges;
    const usages = this.usages;
    this.charges = new Map();
    this.usages = [];
    for (const [lease, items] of charges) this.track(this.writeCharges(lease, items));
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
    try {
      const after = await chargeLease(this.db, lease.id, items, this.expiry(new Date()));
      lease.unwritten -= total;
      lease.inFlight -= total;
      this.see(lease, after);
    } catch (err) {
      this.options.onWriteError?.(err, { leaseId: lease.id, calls: items.length, microUsd: total });
      if (err instanceof LeaseClosedError) {
        // The sweeper released the lease under a live instance (it went unrenewed past its TTL): the money is
        // back on the account and these calls stay uncharged.
        lease.unwritten -= total;
        lease.inFlight -= total;
        this.forget(lease);
        return;
      }
      // The money stays held in the lease meanwhile, so it cannot be spent twice.
      this.retry(() => {
        const queue = this.charges.get(lease);
        if (queue) queue.unshift(...items);
        else this.charges.set(lease, items);
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
      if (lease.opened) returning.push(releaseHold(this.db, lease.id).catch(() => {}));
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
