/**
 * The prepaid books on SQLite: each mutation runs synchronously over statements prepared once, inside a
 * group-committed transaction (BEGIN IMMEDIATE, one savepoint per mutation; see group-commit.ts). Written against the driver rather than the query builder because a hold
 * and a capture sit on every paid call: this way they cost tens of microseconds, not milliseconds.
 */
import type SQLite from 'better-sqlite3';
import type { HoldTable, LedgerKind } from '../store/schema.js';
import {
  type AccountRow,
  type BooksDialect,
  HOLD_COLUMNS,
  type HoldRequest,
  LEDGER_ENTRY_COLUMNS,
  type LeaseCharge,
  type LeaseGrant,
  type LedgerKindEntry,
  leaseSize,
  type SettleOutcome,
  type SettleResult,
  USAGE_COLUMNS,
  type UsageInsert,
} from './dialect.js';
import {
  InsufficientBalanceError,
  LeaseClosedError,
  SpendCapExceededError,
  UnknownAccountError,
} from './errors.js';
import { GroupCommit } from './group-commit.js';
import { RowInserter } from './sqlite-rows.js';

export function createSqliteBooks(raw: SQLite.Database): BooksDialect {
  const s = {
    account: raw.prepare<[string], AccountRow>(
      'SELECT id, balance_micro_usd, held_micro_usd FROM accounts WHERE id = ?',
    ),
    holdAccount: raw.prepare<{ q: number; account: string }, AccountRow>(
      `UPDATE accounts SET held_micro_usd = held_micro_usd + @q
       WHERE id = @account AND balance_micro_usd - held_micro_usd >= @q
       RETURNING id, balance_micro_usd, held_micro_usd`,
    ),
    holdKey: raw.prepare<{ q: number; key: string }, { id: string }>(
      `UPDATE api_keys SET held_micro_usd = held_micro_usd + @q
       WHERE id = @key AND (spend_cap_micro_usd IS NULL OR spent_micro_usd + held_micro_usd + @q <= spend_cap_micro_usd)
       RETURNING id`,
    ),
    keyRoom: raw.prepare<[string], { room: number }>(
      'SELECT COALESCE(spend_cap_micro_usd, 0) - spent_micro_usd - held_micro_usd AS room FROM api_keys WHERE id = ?',
    ),
    insertHold: raw.prepare(
      `INSERT INTO holds (id, account_id, key_id, amount_micro_usd, status, delivered, key_capped, offer_id, request_id, created_at, expires_at, settled_at)
       VALUES (@id, @account, @key, @q, 'open', 0, @capped, @offer, @request, @now, @expires, NULL)`,
    ),
    flipHold: raw.prepare<
      { id: string; status: string; now: string },
      Pick<HoldTable, 'account_id' | 'key_id' | 'key_capped' | 'amount_micro_usd'>
    >(
      `UPDATE holds SET status = @status, settled_at = @now WHERE id = @id AND status = 'open'
       RETURNING account_id, key_id, key_capped, amount_micro_usd - used_micro_usd AS amount_micro_usd`,
    ),
    hold: raw.prepare<[string], HoldTable>('SELECT * FROM holds WHERE id = ?'),
    grantAccount: raw.prepare<{ g: number; account: string }, AccountRow>(
      `UPDATE accounts SET held_micro_usd = held_micro_usd + @g WHERE id = @account
       RETURNING id, balance_micro_usd, held_micro_usd`,
    ),
    insertLease: raw.prepare(
      `INSERT INTO holds (${HOLD_COLUMNS})
       VALUES (@id, 'lease', @account, NULL, @g, 0, 'open', 0, 0, 'kasir:lease', @request, @now, @expires, NULL)`,
    ),
    growLease: raw.prepare(
      `UPDATE holds SET amount_micro_usd = amount_micro_usd + @g, expires_at = @expires
       WHERE id = @id AND status = 'open'`,
    ),
    useLease: raw.prepare<{ id: string; s: number; expires: string }, { account_id: string }>(
      `UPDATE holds SET used_micro_usd = used_micro_usd + @s, expires_at = @expires
       WHERE id = @id AND status = 'open' AND amount_micro_usd - used_micro_usd >= @s
       RETURNING account_id`,
    ),
    chargeAccount: raw.prepare<{ s: number; account: string }, AccountRow>(
      `UPDATE accounts SET balance_micro_usd = balance_micro_usd - @s, held_micro_usd = held_micro_usd - @s
       WHERE id = @account RETURNING id, balance_micro_usd, held_micro_usd`,
    ),
    settleAccount: raw.prepare<{ q: number; spent: number; account: string }, AccountRow>(
      `UPDATE accounts SET held_micro_usd = held_micro_usd - @q, balance_micro_usd = balance_micro_usd - @spent
       WHERE id = @account RETURNING id, balance_micro_usd, held_micro_usd`,
    ),
    settleKey: raw.prepare(
      `UPDATE api_keys SET held_micro_usd = held_micro_usd - @q, spent_micro_usd = spent_micro_usd + @spent WHERE id = @key`,
    ),
    entryByKey: raw.prepare<[string], { id: number }>(
      'SELECT id FROM ledger_entries WHERE idempotency_key = ?',
    ),
    adjustAccount: raw.prepare<{ delta: number; account: string }, AccountRow>(
      `UPDATE accounts SET balance_micro_usd = balance_micro_usd + @delta
       WHERE id = @account AND (@delta >= 0 OR balance_micro_usd - held_micro_usd >= -@delta)
       RETURNING id, balance_micro_usd, held_micro_usd`,
    ),
  };

  const accountOf = (id: string): AccountRow => {
    const row = s.account.get(id);
    if (!row) throw new UnknownAccountError(id);
    return row;
  };
  // The two inserts of every paid call take positional parameters: binding by name costs about a microsecond more
  // per row (the driver looks each name up); only the columns a whole batch shares are named, bound once per
  // statement. A charge batch inserts its rows many to a statement (sqlite-rows.ts).
  const entries = new RowInserter(raw, 'ledger_entries', LEDGER_ENTRY_COLUMNS.split(', '));
  const usages = new RowInserter(raw, 'usage_records', USAGE_COLUMNS);
  // A lease's charges: every entry of one batch has the lease's account, its id, the kind and the batch's time.
  const leaseCaptures = new RowInserter(
    raw,
    'ledger_entries',
    [
      'amount_micro_usd',
      'held_delta_micro_usd',
      'balance_after_micro_usd',
      'held_after_micro_usd',
      'idempotency_key',
    ],
    ['account_id', 'kind', 'hold_id', 'reason', 'created_at'],
  );
  /** Appends an entry's values to `out`, in LEDGER_ENTRY_COLUMNS' order. */
  const entryValues = (out: unknown[], a: AccountRow, e: LedgerKindEntry, now: string) => {
    out.push(
      a.id,
      e.kind,
      e.amount,
      e.heldDelta,
      a.balance_micro_usd,
      a.held_micro_usd,
      e.key,
      e.holdId ?? null,
      e.reason ?? null,
      now,
    );
  };
  /** Appends a usage row's values to `out`, in USAGE_COLUMNS' order. */
  const usageValues = (out: unknown[], u: UsageInsert) => {
    out.push(
      u.created_at,
      u.request_id,
      u.rail,
      u.account_id,
      u.key_id,
      u.payer,
      u.offer_id,
      u.quote_micro_usd,
      u.charged_micro_usd,
      u.status,
      u.http_status,
      u.latency_ms,
      u.error_code,
    );
  };
  const entry = (a: AccountRow, e: LedgerKindEntry, now: string) => {
    const values: unknown[] = [];
    entryValues(values, a, e, now);
    entries.insert(values);
  };
  const usage = (u: UsageInsert) => {
    const values: unknown[] = [];
    usageValues(values, u);
    usages.insert(values);
  };

  const hold = (req: HoldRequest, holdId: string, now: string, expires: string): AccountRow => {
    const q = req.amountMicroUsd;
    const account = s.holdAccount.get({ q, account: req.accountId });
    if (!account) {
      const current = accountOf(req.accountId);
      throw new InsufficientBalanceError(
        q,
        current.balance_micro_usd - current.held_micro_usd,
        current.balance_micro_usd,
      );
    }
    if (req.keyId && req.keySpendCapped && !s.holdKey.get({ q, key: req.keyId })) {
      // Throwing inside the transaction rolls the account hold back.
      throw new SpendCapExceededError(q, s.keyRoom.get(req.keyId)?.room ?? 0);
    }
    const capped = req.keyId !== null && req.keySpendCapped ? 1 : 0;
    s.insertHold.run({
      id: holdId,
      account: req.accountId,
      key: req.keyId,
      capped,
      q,
      offer: req.offerId,
      request: req.requestId,
      now,
      expires,
    });
    entry(account, { kind: 'hold', amount: 0, heldDelta: q, key: `hold:${holdId}`, holdId }, now);
    return account;
  };

  const settle = (
    holdId: string,
    outcome: SettleOutcome,
    now: string,
    usageRow: UsageInsert | null,
  ): SettleResult => {
    const flipped = s.flipHold.get({ id: holdId, status: outcome, now });
    if (!flipped) {
      const existing = s.hold.get(holdId);
      if (!existing) throw new Error(`no hold ${holdId}`);
      return {
        status: existing.status as SettleOutcome,
        amountMicroUsd: existing.amount_micro_usd,
        account: accountOf(existing.account_id),
        applied: false,
      };
    }
    const q = flipped.amount_micro_usd;
    const spent = outcome === 'captured' ? q : 0;
    const account = s.settleAccount.get({ q, spent, account: flipped.account_id }) as AccountRow;
    if (flipped.key_id && flipped.key_capped) s.settleKey.run({ q, spent, key: flipped.key_id });
    entry(
      account,
      {
        kind: outcome === 'captured' ? 'capture' : 'release',
        amount: -spent,
        heldDelta: -q,
        key: `${outcome === 'captured' ? 'capture' : 'release'}:${holdId}`,
        holdId,
      },
      now,
    );
    if (usageRow) usage(usageRow);
    return { status: outcome, amountMicroUsd: q, account, applied: true };
  };

  const grantLease = (g: LeaseGrant) => {
    const current = accountOf(g.accountId);
    const available = current.balance_micro_usd - current.held_micro_usd;
    if (available < g.minMicroUsd)
      throw new InsufficientBalanceError(g.minMicroUsd, available, current.balance_micro_usd);
    const granted = leaseSize(g, available);
    if (g.isNew) {
      s.insertLease.run({
        id: g.leaseId,
        account: g.accountId,
        g: granted,
        request: g.requestId,
        now: g.now,
        expires: g.expiresAt,
      });
    } else if (s.growLease.run({ id: g.leaseId, g: granted, expires: g.expiresAt }).changes === 0) {
      throw new LeaseClosedError(g.leaseId);
    }
    const account = s.grantAccount.get({ g: granted, account: g.accountId }) as AccountRow;
    entry(
      account,
      { kind: 'hold', amount: 0, heldDelta: granted, key: g.entryKey, holdId: g.leaseId },
      g.now,
    );
    return { account, grantedMicroUsd: granted };
  };

  const chargeLease = (leaseId: string, charges: LeaseCharge[], now: string, expiresAt: string) => {
    const total = charges.reduce((sum, c) => sum + c.amountMicroUsd, 0);
    const lease = s.useLease.get({ id: leaseId, s: total, expires: expiresAt });
    if (!lease) throw new LeaseClosedError(leaseId);
    const after = s.chargeAccount.get({ s: total, account: lease.account_id }) as AccountRow;
    // Each entry states the balance right after its own charge, as if the calls had settled one by one.
    let balance = after.balance_micro_usd + total;
    let held = after.held_micro_usd + total;
    const entryRows: unknown[] = [];
    const usageRows: unknown[] = [];
    for (const c of charges) {
      balance -= c.amountMicroUsd;
      held -= c.amountMicroUsd;
      entryRows.push(-c.amountMicroUsd, -c.amountMicroUsd, balance, held, `capture:${c.chargeId}`);
      usageValues(usageRows, c.usage);
    }
    leaseCaptures.insert(entryRows, {
      account_id: after.id,
      kind: 'capture' satisfies LedgerKind,
      hold_id: leaseId,
      reason: null,
      created_at: now,
    });
    usages.insert(usageRows);
    return after;
  };

  const adjust = (
    accountId: string,
    delta: number,
    key: string,
    kind: 'credit' | 'debit',
    reason: string,
    now: string,
  ) => {
    if (s.entryByKey.get(key)) return { account: accountOf(accountId), applied: false };
    const account = s.adjustAccount.get({ delta, account: accountId });
    if (!account) {
      const current = accountOf(accountId);
      throw new InsufficientBalanceError(
        -delta,
        current.balance_micro_usd - current.held_micro_usd,
        current.balance_micro_usd,
      );
    }
    entry(account, { kind, amount: delta, heldDelta: 0, key, reason }, now);
    return { account, applied: true };
  };

  const group = new GroupCommit(raw);
  return {
    placeHold: (req, holdId, now, expires) => group.submit(() => hold(req, holdId, now, expires)),
    settle: (holdId, outcome, now, usage) => group.submit(() => settle(holdId, outcome, now, usage)),
    adjust: (accountId, delta, key, kind, reason, now) =>
      group.submit(() => adjust(accountId, delta, key, kind, reason, now)),
    grantLease: (g) => group.submit(() => grantLease(g)),
    chargeLease: (leaseId, charges, now, expiresAt) =>
      group.submit(() => chargeLease(leaseId, charges, now, expiresAt)),
    insertUsage: (rows) =>
      group.submit(() => {
        const values: unknown[] = [];
        for (const r of rows) usageValues(values, r);
        usages.insert(values);
      }),
  };
}
