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
 * its database write, batched with every other charge taken within a few milliseconds (charge-writer.ts).
 * A process that dies before the batch is written leaves the charge in the journal, and the next start replays it:
 * every answered call is charged once, and a call whose answer never left is not (see journal-replay.ts).
 *
 * Safety rests on the database, not on memory: a lease is an ordinary hold, so the account can never spend
 * more than its balance across any number of instances, and a lease left by a dead instance is released when its
 * journal is replayed (or by the sweeper, after its TTL, if no instance ever replays it).
 * Near the end of a balance, grants are only what a call lacks (see leaseSize), and an idle lease goes back
 * after `idleMs`, so money one instance is not using does not stay out of other instances' reach.
 *
 * This module reserves and returns the money; lease.ts holds a lease's in-memory state and charge-writer.ts
 * writes the charges. Written here rather than taken from a library: no payment library does balance leasing over a SQL ledger.
 */
import type { Db } from '../store/db.js';
import { type Balance, grantLease, placeHold, releaseHold, type UsageInsert } from './books.js';
import type { Journal } from './charge-journal.js';
import { type CaptureRecord, ChargeWriter, type WriteErrorHandler } from './charge-writer.js';
import { InsufficientBalanceError, LeaseClosedError } from './errors.js';
import { newId } from './ids.js';
import { expiryAfter, type Lease, leaseBalance, newLease, seeBalance } from './lease.js';

export interface LeaseOptions {
  /** Told when charges could not be written (they are retried) or were lost with a swept lease. */
  onWriteError?: WriteErrorHandler;
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

/** How long shutdown keeps trying to write pending charges (a database that stays down loses them). */
const CLOSE_FLUSH_MS = 5000;

export class Reserves {
  private readonly leases = new Map<string, Lease>();
  private readonly writer: ChargeWriter;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly db: Db,
    private readonly options: LeaseOptions,
  ) {
    this.writer = new ChargeWriter(db, {
      journal: options.journal,
      onWriteError: options.onWriteError,
      ttlSeconds: options.ttlSeconds,
      onLeaseClosed: (lease) => this.forget(lease),
    });
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

  /**
   * Queues the usage row of a call that moved no money and reserved none (a free call): written with the next
   * batch, like a voided call's, so the call waits for no database write. A failed write is told to onWriteError and
   * retried.
   */
  recordUsage(usage: UsageInsert): void {
    this.writer.queueUsage(usage);
  }

  /** Writes every charge and usage row taken so far (retrying failed writes, until `deadline`) and waits. */
  flush(deadline = Number.POSITIVE_INFINITY): Promise<void> {
    return this.writer.flush(deadline);
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
    return lease?.opened ? leaseBalance(lease) : null;
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
      lease = newLease(accountId);
      this.leases.set(accountId, lease);
    }
    return lease;
  }

  private grow(lease: Lease, min: number, requestId: string): Promise<void> {
    const growing = (async () => {
      const now = new Date();
      try {
        // Journalled first, and durable before the lease exists (a journal in PostgreSQL writes on several
        // connections, so a later charge's row could otherwise land before it): if this process dies once the
        // lease exists, the replay releases it at once.
        if (!lease.opened)
          await this.journal?.append({ k: 'lease', lease: lease.id, account: lease.accountId });
        const { balance, grantedMicroUsd } = await grantLease(this.db, {
          leaseId: lease.id,
          isNew: !lease.opened,
          accountId: lease.accountId,
          minMicroUsd: min,
          maxMicroUsd: this.options.maxMicroUsd,
          entryKey: `hold:${newId('lease')}`,
          requestId,
          now: now.toISOString(),
          expiresAt: expiryAfter(now, this.options.ttlSeconds),
        });
        lease.opened = true;
        lease.unused += grantedMicroUsd;
        seeBalance(lease, balance);
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
          balance: leaseBalance(lease),
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
            this.writer.queueCharge(lease, { chargeId: id, amountMicroUsd: amount, usage });
            return durable;
          },
        };
      },
      release: async (usage) => {
        lease.inFlight -= amount;
        if (!lease.closed) lease.unused += amount;
        this.writer.queueUsage(usage);
        return leaseBalance(lease);
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
            this.writer.queueCapture(record);
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
}
