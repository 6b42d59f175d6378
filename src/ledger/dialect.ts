/** The three money mutations each database dialect implements atomically: hold, settle, adjust. */
import type { AccountTable, LedgerKind, UsageRecordTable } from '../store/schema.js';

export interface HoldRequest {
  accountId: string;
  keyId: string | null;
  /** When set, the key's spend cap also bounds this hold. */
  keySpendCapped: boolean;
  amountMicroUsd: number;
  offerId: string;
  requestId: string;
  ttlSeconds: number;
}

export type SettleOutcome = 'captured' | 'released';

/** A usage row written in the same transaction as the settlement. */
export type UsageInsert = Omit<UsageRecordTable, 'id'>;

/** The columns every usage row has, in one order for every writer that lists them (statements, journal lines). */
export const USAGE_COLUMNS = [
  'created_at',
  'request_id',
  'rail',
  'account_id',
  'key_id',
  'payer',
  'offer_id',
  'quote_micro_usd',
  'charged_micro_usd',
  'status',
  'http_status',
  'latency_ms',
  'error_code',
] as const satisfies ReadonlyArray<keyof UsageInsert>;

/** The columns only a wallet payment's usage row has (left out of the others, not null). */
export const WALLET_USAGE_COLUMNS = ['route', 'network', 'tx_id'] as const satisfies ReadonlyArray<
  keyof UsageInsert
>;
// Every usage column is in one of the two lists (this fails to compile when a column is added to the table alone).
const everyUsageColumnListed: [
  Exclude<keyof UsageInsert, (typeof USAGE_COLUMNS)[number] | (typeof WALLET_USAGE_COLUMNS)[number]>,
] extends [never]
  ? true
  : never = true;
void everyUsageColumnListed;

export interface LedgerKindEntry {
  kind: LedgerKind;
  amount: number;
  heldDelta: number;
  key: string;
  holdId?: string;
  reason?: string | null;
}

export type AccountRow = Pick<AccountTable, 'id' | 'balance_micro_usd' | 'held_micro_usd'>;

export interface SettleResult {
  /** The hold's status after the call (the outcome, or what an earlier settlement made it). */
  status: SettleOutcome;
  amountMicroUsd: number;
  account: AccountRow;
  /** False when the hold was already settled: nothing moved. */
  applied: boolean;
}

/** A lease to open (`isNew`) or grow by at least `minMicroUsd` (see leaseSize). */
export interface LeaseGrant {
  leaseId: string;
  isNew: boolean;
  accountId: string;
  minMicroUsd: number;
  maxMicroUsd: number;
  /** The ledger entry's idempotency key for this grant. */
  entryKey: string;
  requestId: string;
  now: string;
  expiresAt: string;
}

/** One call charged from a lease; its usage row lands in the same transaction. */
export interface LeaseCharge {
  chargeId: string;
  amountMicroUsd: number;
  usage: UsageInsert;
}

export interface BooksDialect {
  /** Reserves the amount (and key cap room) and records the hold; throws InsufficientBalance/SpendCapExceeded. */
  placeHold(req: HoldRequest, holdId: string, now: string, expiresAt: string): Promise<AccountRow>;
  /** Flips an open hold to captured/released and moves the account; `applied` is false if it was already settled. */
  settle(
    holdId: string,
    outcome: SettleOutcome,
    now: string,
    usage: UsageInsert | null,
  ): Promise<SettleResult>;
  /** Opens or grows a lease; throws InsufficientBalance when less than min is available, LeaseClosed if swept. */
  grantLease(grant: LeaseGrant): Promise<{ account: AccountRow; grantedMicroUsd: number }>;
  /** Charges calls from an open lease in one step (balance and held both fall); returns the account after. */
  chargeLease(leaseId: string, charges: LeaseCharge[], now: string, expiresAt: string): Promise<AccountRow>;
  /** Usage rows of calls that moved no money (voided calls served from a lease). */
  insertUsage(rows: UsageInsert[]): Promise<void>;
  /** Credit (delta > 0) or debit (delta < 0) once per idempotency key; a debit never reaches held money. */
  adjust(
    accountId: string,
    delta: number,
    key: string,
    kind: 'credit' | 'debit',
    reason: string,
    now: string,
  ): Promise<{ account: AccountRow; applied: boolean }>;
}

/** The columns of a lease row, in the order both dialects insert them. */
export const HOLD_COLUMNS =
  'id, kind, account_id, key_id, amount_micro_usd, used_micro_usd, status, delivered, key_capped, offer_id, request_id, created_at, expires_at, settled_at';

/** The columns of a ledger entry, in the order both dialects insert them. */
export const LEDGER_ENTRY_COLUMNS =
  'account_id, kind, amount_micro_usd, held_delta_micro_usd, balance_after_micro_usd, held_after_micro_usd, idempotency_key, hold_id, reason, created_at';

/**
 * How much a lease grant takes. With plenty available (at least two full leases), a full lease. Near the end
 * of a balance, only what the call lacks: then no money sits unused in one instance's lease while another
 * instance refuses a call for want of it, and the calls a balance covers are exactly the calls that succeed.
 */
export function leaseSize(g: Pick<LeaseGrant, 'minMicroUsd' | 'maxMicroUsd'>, available: number): number {
  return available >= 2 * g.maxMicroUsd ? Math.max(g.minMicroUsd, g.maxMicroUsd) : g.minMicroUsd;
}
