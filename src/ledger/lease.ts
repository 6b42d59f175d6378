/**
 * A balance lease as this instance holds it in memory: the slice of an account's balance it reserved in the
 * database (a hold of kind 'lease'), what of it running calls use, and the charges taken but not yet written.
 */
import type { Balance } from './books.js';
import { newId } from './ids.js';

export interface Lease {
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

/** A lease not yet granted: its row is written by the first grant. */
export function newLease(accountId: string): Lease {
  return {
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
}

/** Takes in the account's balance as the database just stated it. */
export function seeBalance(lease: Lease, balance: Balance): void {
  lease.balance = balance.balanceMicroUsd;
  lease.held = balance.heldMicroUsd;
}

/** The account as it stands once this instance's unwritten charges are written. */
export function leaseBalance(lease: Lease): Balance {
  const balance = lease.balance - lease.unwritten;
  const held = lease.held - lease.unwritten;
  return {
    accountId: lease.accountId,
    balanceMicroUsd: balance,
    heldMicroUsd: held,
    availableMicroUsd: balance - held,
  };
}

/** When a lease or hold written now lapses if this instance dies unreplayed (the sweeper then releases it). */
export function expiryAfter(now: Date, ttlSeconds: number): string {
  return new Date(now.getTime() + ttlSeconds * 1000).toISOString();
}
