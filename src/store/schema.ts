/** Table types of the kasir database, shared by SQLite and PostgreSQL. Money columns are integer micro-USD. */
import type { Generated } from 'kysely';

export interface MediaObjectTable {
  key: string;
  content_type: string;
  size_bytes: number;
  etag: string;
  created_at: string;
}

/** A prepaid account. balance and held only move together with a ledger entry, in one transaction. */
export interface AccountTable {
  id: string;
  label: string | null;
  balance_micro_usd: number;
  held_micro_usd: number;
  /** Requests per minute for this account's keys; null = the server default. */
  rate_limit_per_minute: number | null;
  created_at: string;
}

export interface ApiKeyTable {
  id: string;
  account_id: string;
  /** The first characters of the key, shown to identify it; the key itself is never stored. */
  prefix: string;
  /** SHA-256 of the whole key (hex): keys are 256-bit random, so a fast hash is enough. */
  hash: string;
  label: string | null;
  spend_cap_micro_usd: number | null;
  spent_micro_usd: number;
  held_micro_usd: number;
  rate_limit_per_minute: number | null;
  created_at: string;
  revoked_at: string | null;
}

export type HoldStatus = 'open' | 'captured' | 'released';

export interface HoldTable {
  id: string;
  /** 'call': one call's hold. 'lease': an instance's reservation serving many calls (see ledger/reserves.ts). */
  kind: 'call' | 'lease';
  account_id: string;
  key_id: string | null;
  amount_micro_usd: number;
  status: HoldStatus;
  /** 1 once any of the result reached the caller (a stream started): a crash then captures instead of releasing. */
  delivered: number;
  /** 1 when the key had a spend cap at hold time: settling then moves the key's counters too. */
  key_capped: number;
  offer_id: string;
  request_id: string;
  created_at: string;
  expires_at: string;
  settled_at: string | null;
  /** Of a lease: the part already charged or moved into a call's own hold (0 for a call's hold). */
  used_micro_usd: number;
}

export type LedgerKind = 'credit' | 'debit' | 'hold' | 'capture' | 'release';

/** Append-only: Σ amount = balance and Σ held_delta = held, per account. */
export interface LedgerEntryTable {
  id: Generated<number>;
  account_id: string;
  kind: LedgerKind;
  amount_micro_usd: number;
  held_delta_micro_usd: number;
  balance_after_micro_usd: number;
  held_after_micro_usd: number;
  idempotency_key: string;
  hold_id: string | null;
  reason: string | null;
  created_at: string;
}

/**
 * One append-only row per paid call that reached a rail (charged or not), and per free call that ran (rail 'free',
 * no payer, nothing charged).
 */
export interface UsageRecordTable {
  id: Generated<number>;
  created_at: string;
  request_id: string;
  rail: string;
  account_id: string | null;
  key_id: string | null;
  payer: string | null;
  offer_id: string;
  quote_micro_usd: number;
  charged_micro_usd: number;
  /** Charged; voided (failed, or refused once it ran: nothing charged); free (a free call served). */
  status: 'charged' | 'voided' | 'free';
  http_status: number;
  latency_ms: number;
  error_code: string | null;
  /** Of a wallet payment: the route called, the chain (CAIP-2) and the settlement's transaction id. */
  route?: string | null;
  network?: string | null;
  tx_id?: string | null;
}

export type WalletPaymentState = 'running' | 'paid' | 'settled';

/**
 * One wallet payment that passed verification. The id (SHA-256 of the payment's identity on its chain: an EVM
 * authorization's payer and nonce, a Solana transaction, an Algorand group) is the lock: 'running' while its call
 * runs (with `tx_id` set when the payment had already settled and its answer is being made again), 'paid' once it
 * settled on chain and until its answer is stored for replay (a process that died between the two leaves it so: the
 * same payment sent again gets its answer), 'settled' for good once the answer was stored and handed over; a call
 * that fails before settling deletes the row, so the payment can be sent again.
 */
export interface WalletPaymentTable {
  id: string;
  rail: string;
  network: string;
  asset: string;
  payer: string;
  /** In the asset's base units (a decimal string: 18-decimal amounts exceed 2^53). */
  amount: string;
  amount_micro_usd: number;
  route: string;
  offer_id: string;
  request_id: string;
  state: WalletPaymentState;
  tx_id: string | null;
  created_at: string;
  settled_at: string | null;
}

export interface IdempotencyRecordTable {
  /** SHA-256 of route, caller scope and the caller's Idempotency-Key. */
  key: string;
  request_hash: string;
  status: 'running' | 'done';
  response_status: number | null;
  response_headers: string | null;
  response_body: string | null;
  created_at: string;
}

/** A challenge secret of the MPP rail; the newest unretired one signs. */
export interface MppSecretTable {
  id: string;
  secret: string;
  created_at: string;
  retired_at: string | null;
}

/** mppx's key-value store (replay keys of charges), shared by every instance. */
export interface MppStoreTable {
  key: string;
  /** JSON. */
  value: string;
  /** Unix milliseconds after which the row may be dropped; null: kept. */
  expires_at: number | null;
}

/**
 * A wallet payer's credit, as earlier versions kept it (payments for calls that then failed). No longer written or
 * spent: failed calls' payments now go back on-chain. Rows left from before stay for the operator to settle.
 */
export interface PayerCreditTable {
  /** `did:pkh:eip155:<chain>:<address>` (lower-case address). */
  payer: string;
  balance_micro_usd: number;
  updated_at: string;
}

/** Every change of a payer's credit, keyed so that each is applied once. */
export interface PayerCreditEntryTable {
  id: string;
  payer: string;
  /** Positive: credited; negative: spent. */
  amount_micro_usd: number;
  reason: string;
  created_at: string;
}

/** A signed-in dashboard browser: by a key (account_id) or by a wallet (wallet). The session id itself is never stored. */
export interface DashboardSessionTable {
  /** SHA-256 (hex) of the session id the cookie carries. */
  id_hash: string;
  account_id: string | null;
  wallet: string | null;
  /** The token every form of this session must carry. */
  csrf_token: string;
  created_at: string;
  expires_at: string;
}

export type TopupStatus = 'pending' | 'paid' | 'expired' | 'failed';

/** A rupiah top-up paid by QRIS. The rate is fixed at creation; amount_micro_usd = floor(idr × 10^6 / rate). */
export interface TopupOrderTable {
  /** Also the gateway's order_id. */
  id: string;
  gateway: string;
  amount_idr: number;
  idr_per_usd: number;
  amount_micro_usd: number;
  /** The account credited; for a visitor's top-up it is created on payment (new_account = 1). */
  account_id: string;
  new_account: number;
  status: TopupStatus;
  qr_string: string | null;
  /** The gateway's transaction id. */
  gateway_ref: string | null;
  /** SHA-256 of the secret the visitor's browser holds, which lets it see the order and claim its key once. */
  claim_hash: string | null;
  /** The key issued when the visitor claimed it (shown once, then only its id is kept here). */
  key_id: string | null;
  created_at: string;
  expires_at: string;
  paid_at: string | null;
}

/** `submitting`: the row is written before the upstream submit, so a hold is never out of the table. */
export type JobStatus = 'submitting' | 'queued' | 'running' | 'succeeded' | 'failed';

/** An async job (Prepaid `Prefer: respond-async` calls): see migrations/007-jobs.ts. */
export interface JobTable {
  id: string;
  offer_id: string;
  rail: string;
  account_id: string | null;
  key_id: string | null;
  /** The database hold carrying the job's money until it ends. */
  hold_id: string;
  amount_micro_usd: number;
  request_id: string;
  /** The upstream's handle (JSON). */
  handle: string;
  status: JobStatus;
  /** Once succeeded: the body the synchronous call would have answered (JSON). */
  result: string | null;
  /** Once failed: the error body (JSON). */
  error: string | null;
  created_at: string;
  /** Past this the job is given up (cancelled upstream, its money released). */
  deadline_at: string;
  /** The instance polling the job holds it until then. */
  locked_until: string | null;
  /** Which instance that is (a runner's own id; migration 012). */
  locked_by: string | null;
  finished_at: string | null;
}

/**
 * A payment channel (TIP-1034 escrow on Tempo) a payer registered. Amounts are the token's base units (6 decimals:
 * micro-USD); `accepted` is the highest cumulative voucher taken, `spent` what calls have used of it.
 */
export interface PaymentChannelTable {
  id: string;
  payer: string;
  /** Who signs vouchers: the descriptor's authorizedSigner, or the payer. */
  signer: string;
  /** The channel descriptor (JSON), what settling and closing need. */
  descriptor: string;
  deposit: number;
  settled: number;
  accepted: number;
  voucher_signature: string | null;
  spent: number;
  /** The part of `spent` that calls still running hold (given back if they fail): the sum of its `channel_holds`. */
  in_flight: number;
  units: number;
  close_requested_at: string | null;
  finalized_at: string | null;
  close_tx: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * What one running call holds of a payment channel (counted in the channel's `spent` and `in_flight` too), until
 * the call ends or, left by a process that died, the sweeper releases it after `expires_at`.
 */
export interface ChannelHoldTable {
  id: string;
  channel_id: string;
  amount: number;
  created_at: string;
  /** Taken or last raised + HOLD_TTL_SECONDS. */
  expires_at: string;
}

export interface Database {
  media_objects: MediaObjectTable;
  accounts: AccountTable;
  api_keys: ApiKeyTable;
  holds: HoldTable;
  ledger_entries: LedgerEntryTable;
  usage_records: UsageRecordTable;
  idempotency_records: IdempotencyRecordTable;
  wallet_payments: WalletPaymentTable;
  mpp_secrets: MppSecretTable;
  mpp_store: MppStoreTable;
  payer_credits: PayerCreditTable;
  payer_credit_entries: PayerCreditEntryTable;
  payment_channels: PaymentChannelTable;
  channel_holds: ChannelHoldTable;
  dashboard_sessions: DashboardSessionTable;
  topup_orders: TopupOrderTable;
  jobs: JobTable;
}
