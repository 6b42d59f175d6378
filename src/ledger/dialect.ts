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
  /** Records that part of the result reached the caller (a crash then captures instead of releasing). */
  markDelivered(holdId: string): Promise<void>;
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

/** The columns of a ledger entry, in the order both dialects insert them. */
export const LEDGER_ENTRY_COLUMNS =
  'account_id, kind, amount_micro_usd, held_delta_micro_usd, balance_after_micro_usd, held_after_micro_usd, idempotency_key, hold_id, reason, created_at';
