/**
 * The prepaid books on PostgreSQL: a hold and a settlement are each ONE statement (data-modifying CTEs), so a
 * paid call costs two round trips and the row lock on the account is held for one statement only. The
 * conditional UPDATE on the account row is what makes concurrent holds (on any number of instances) safe:
 * PostgreSQL re-checks its WHERE against the latest committed row before updating it.
 * Written in SQL rather than the query builder because the builder cannot express these CTEs as prepared,
 * named statements, and these two statements run on every paid call.
 * One idea, though long: the PostgreSQL dialect of the books (BooksDialect), most of its length the SQL statements
 * each method runs.
 */
import type pg from 'pg';
import type { HoldTable } from '../store/schema.js';
import {
  type AccountRow,
  type BooksDialect,
  HOLD_COLUMNS,
  type HoldRequest,
  LEDGER_ENTRY_COLUMNS,
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

// $1 amount, $2 account, $3 hold id, $4 key id, $5 offer, $6 request, $7 now, $8 expires, $9 key capped (0/1).
const HOLD_SQL = `
WITH acct AS (
  UPDATE accounts SET held_micro_usd = held_micro_usd + $1::bigint
  WHERE id = $2 AND balance_micro_usd - held_micro_usd >= $1::bigint
  RETURNING id, balance_micro_usd, held_micro_usd
), h AS (
  INSERT INTO holds (id, account_id, key_id, amount_micro_usd, status, delivered, key_capped, offer_id, request_id, created_at, expires_at, settled_at)
  SELECT $3, id, $4, $1::bigint, 'open', 0, $9, $5, $6, $7, $8, NULL FROM acct
), e AS (
  INSERT INTO ledger_entries (${LEDGER_ENTRY_COLUMNS})
  SELECT id, 'hold', 0, $1::bigint, balance_micro_usd, held_micro_usd, 'hold:' || $3, $3, NULL, $7 FROM acct
)
SELECT id, balance_micro_usd, held_micro_usd FROM acct`;

const KEY_HOLD_SQL = `
UPDATE api_keys SET held_micro_usd = held_micro_usd + $1::bigint
WHERE id = $2 AND (spend_cap_micro_usd IS NULL OR spent_micro_usd + held_micro_usd + $1::bigint <= spend_cap_micro_usd)
RETURNING id`;

const USAGE_TYPES: Record<(typeof USAGE_COLUMNS)[number], string> = {
  created_at: 'text',
  request_id: 'text',
  rail: 'text',
  account_id: 'text',
  key_id: 'text',
  payer: 'text',
  offer_id: 'text',
  quote_micro_usd: 'bigint',
  charged_micro_usd: 'bigint',
  status: 'text',
  http_status: 'int',
  latency_ms: 'int',
  error_code: 'text',
};

// $1 hold id, $2 outcome, $3 now, $4 usage-present flag, $5.. usage columns.
const SETTLE_SQL = `
WITH h AS (
  UPDATE holds SET status = $2, settled_at = $3 WHERE id = $1 AND status = 'open'
  RETURNING account_id, key_id, key_capped, amount_micro_usd - used_micro_usd AS amount_micro_usd,
    CASE WHEN $2 = 'captured' THEN amount_micro_usd - used_micro_usd ELSE 0 END AS spent
), acct AS (
  UPDATE accounts a SET held_micro_usd = a.held_micro_usd - h.amount_micro_usd, balance_micro_usd = a.balance_micro_usd - h.spent
  FROM h WHERE a.id = h.account_id
  RETURNING a.id, a.balance_micro_usd, a.held_micro_usd, h.amount_micro_usd, h.spent
), k AS (
  UPDATE api_keys SET held_micro_usd = api_keys.held_micro_usd - h.amount_micro_usd, spent_micro_usd = api_keys.spent_micro_usd + h.spent
  FROM h WHERE api_keys.id = h.key_id AND h.key_capped = 1
), e AS (
  INSERT INTO ledger_entries (${LEDGER_ENTRY_COLUMNS})
  SELECT id, CASE WHEN $2 = 'captured' THEN 'capture' ELSE 'release' END, -spent, -amount_micro_usd,
    balance_micro_usd, held_micro_usd, CASE WHEN $2 = 'captured' THEN 'capture:' ELSE 'release:' END || $1, $1, NULL, $3
  FROM acct
), u AS (
  INSERT INTO usage_records (${USAGE_COLUMNS.join(', ')})
  SELECT ${USAGE_COLUMNS.map((_, i) => `$${i + 5}`).join(', ')} FROM acct WHERE $4::boolean
)
SELECT id, balance_micro_usd, held_micro_usd, amount_micro_usd FROM acct`;

// $1 delta, $2 account, $3 idempotency key, $4 kind, $5 reason, $6 now.
const ADJUST_SQL = `
WITH acct AS (
  UPDATE accounts SET balance_micro_usd = balance_micro_usd + $1::bigint
  WHERE id = $2
    AND NOT EXISTS (SELECT 1 FROM ledger_entries WHERE idempotency_key = $3)
    AND ($1::bigint >= 0 OR balance_micro_usd - held_micro_usd >= -$1::bigint)
  RETURNING id, balance_micro_usd, held_micro_usd
), e AS (
  INSERT INTO ledger_entries (${LEDGER_ENTRY_COLUMNS})
  SELECT id, $4, $1::bigint, 0, balance_micro_usd, held_micro_usd, $3, NULL, $5, $6 FROM acct
)
SELECT id, balance_micro_usd, held_micro_usd FROM acct`;

// $1 lease id, $2 total, $3 now, $4 expires, $5 charge ids, $6 amounts, $7 running totals, then usage columns.
const CHARGE_LEASE_SQL = `
WITH h AS (
  UPDATE holds SET used_micro_usd = used_micro_usd + $2::bigint, expires_at = $4
  WHERE id = $1 AND status = 'open' AND amount_micro_usd - used_micro_usd >= $2::bigint
  RETURNING account_id
), acct AS (
  UPDATE accounts a SET balance_micro_usd = a.balance_micro_usd - $2::bigint, held_micro_usd = a.held_micro_usd - $2::bigint
  FROM h WHERE a.id = h.account_id
  RETURNING a.id, a.balance_micro_usd, a.held_micro_usd
), e AS (
  INSERT INTO ledger_entries (${LEDGER_ENTRY_COLUMNS})
  SELECT acct.id, 'capture', -x.amount, -x.amount, acct.balance_micro_usd + $2::bigint - x.running,
    acct.held_micro_usd + $2::bigint - x.running, 'capture:' || x.charge_id, $1, NULL, $3
  FROM acct, unnest($5::text[], $6::bigint[], $7::bigint[]) AS x(charge_id, amount, running)
), u AS (
  INSERT INTO usage_records (${USAGE_COLUMNS.join(', ')})
  SELECT x.* FROM acct, unnest(${USAGE_COLUMNS.map((c, i) => `$${i + 8}::${USAGE_TYPES[c]}[]`).join(', ')}) AS x
)
SELECT id, balance_micro_usd, held_micro_usd FROM acct`;

const INSERT_USAGE_SQL = `
INSERT INTO usage_records (${USAGE_COLUMNS.join(', ')})
SELECT * FROM unnest(${USAGE_COLUMNS.map((c, i) => `$${i + 1}::${USAGE_TYPES[c]}[]`).join(', ')})`;

/** Usage rows as column arrays, for one multi-row insert through unnest(). */
const usageColumns = (rows: UsageInsert[]) => USAGE_COLUMNS.map((c) => rows.map((r) => r[c]));

const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === '23505';

async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

export function createPostgresBooks(pool: pg.Pool): BooksDialect {
  const accountOf = async (client: pg.Pool | pg.PoolClient, id: string): Promise<AccountRow> => {
    const { rows } = await client.query<AccountRow>({
      name: 'kasir_account',
      text: 'SELECT id, balance_micro_usd, held_micro_usd FROM accounts WHERE id = $1',
      values: [id],
    });
    if (!rows[0]) throw new UnknownAccountError(id);
    return rows[0];
  };
  const insufficient = async (client: pg.Pool | pg.PoolClient, accountId: string, q: number) => {
    const a = await accountOf(client, accountId);
    return new InsufficientBalanceError(q, a.balance_micro_usd - a.held_micro_usd, a.balance_micro_usd);
  };
  const holdValues = (req: HoldRequest, holdId: string, now: string, expires: string) => [
    req.amountMicroUsd,
    req.accountId,
    holdId,
    req.keyId,
    req.offerId,
    req.requestId,
    now,
    expires,
    req.keyId !== null && req.keySpendCapped ? 1 : 0,
  ];

  return {
    async placeHold(req, holdId, now, expires) {
      const q = req.amountMicroUsd;
      if (!(req.keyId && req.keySpendCapped)) {
        const { rows } = await pool.query<AccountRow>({
          name: 'kasir_hold',
          text: HOLD_SQL,
          values: holdValues(req, holdId, now, expires),
        });
        if (!rows[0]) throw await insufficient(pool, req.accountId, q);
        return rows[0];
      }
      // A capped key's room and the account's balance must both hold, or neither: one transaction. The account
      // row is locked before the key's, the order a settlement takes them in (the other order could deadlock).
      return inTransaction(pool, async (client) => {
        const { rows } = await client.query<AccountRow>({
          name: 'kasir_hold',
          text: HOLD_SQL,
          values: holdValues(req, holdId, now, expires),
        });
        if (!rows[0]) throw await insufficient(client, req.accountId, q);
        const key = await client.query({
          name: 'kasir_key_hold',
          text: KEY_HOLD_SQL,
          values: [q, req.keyId],
        });
        if (key.rowCount === 0) {
          const { rows: room } = await client.query<{ room: number }>(
            'SELECT COALESCE(spend_cap_micro_usd, 0) - spent_micro_usd - held_micro_usd AS room FROM api_keys WHERE id = $1',
            [req.keyId],
          );
          throw new SpendCapExceededError(q, Number(room[0]?.room ?? 0));
        }
        return rows[0];
      });
    },

    async settle(
      holdId: string,
      outcome: SettleOutcome,
      now: string,
      usage: UsageInsert | null,
    ): Promise<SettleResult> {
      const usageValues = USAGE_COLUMNS.map((c) => (usage ? usage[c] : null));
      const { rows } = await pool.query<AccountRow & { amount_micro_usd: number }>({
        name: 'kasir_settle',
        text: SETTLE_SQL,
        values: [holdId, outcome, now, usage !== null, ...usageValues],
      });
      const settled = rows[0];
      if (settled) {
        const { amount_micro_usd, ...account } = settled;
        return { status: outcome, amountMicroUsd: amount_micro_usd, account, applied: true };
      }
      // Already settled (a replay, or the sweeper got there first): report what it became.
      const { rows: holds } = await pool.query<HoldTable>({
        name: 'kasir_hold_row',
        text: 'SELECT * FROM holds WHERE id = $1',
        values: [holdId],
      });
      const hold = holds[0];
      if (!hold) throw new Error(`no hold ${holdId}`);
      return {
        status: hold.status as SettleOutcome,
        amountMicroUsd: hold.amount_micro_usd,
        account: await accountOf(pool, hold.account_id),
        applied: false,
      };
    },

    async grantLease(g) {
      // Rare (one per lease-full of calls), so a plain transaction. Locks are taken lease row first, then
      // account row, the order every charge statement takes them in (the other order could deadlock).
      return inTransaction(pool, async (client) => {
        if (!g.isNew) {
          const { rowCount } = await client.query(
            `SELECT 1 FROM holds WHERE id = $1 AND status = 'open' FOR UPDATE`,
            [g.leaseId],
          );
          if (rowCount === 0) throw new LeaseClosedError(g.leaseId);
        }
        const { rows } = await client.query<AccountRow>(
          'SELECT id, balance_micro_usd, held_micro_usd FROM accounts WHERE id = $1 FOR UPDATE',
          [g.accountId],
        );
        const current = rows[0];
        if (!current) throw new UnknownAccountError(g.accountId);
        const available = current.balance_micro_usd - current.held_micro_usd;
        if (available < g.minMicroUsd)
          throw new InsufficientBalanceError(g.minMicroUsd, available, current.balance_micro_usd);
        const granted = leaseSize(g, available);
        if (g.isNew) {
          await client.query(
            `INSERT INTO holds (${HOLD_COLUMNS})
             VALUES ($1, 'lease', $2, NULL, $3, 0, 'open', 0, 0, 'kasir:lease', $4, $5, $6, NULL)`,
            [g.leaseId, g.accountId, granted, g.requestId, g.now, g.expiresAt],
          );
        } else {
          await client.query(
            'UPDATE holds SET amount_micro_usd = amount_micro_usd + $2::bigint, expires_at = $3 WHERE id = $1',
            [g.leaseId, granted, g.expiresAt],
          );
        }
        const { rows: after } = await client.query<AccountRow>(
          `UPDATE accounts SET held_micro_usd = held_micro_usd + $2::bigint WHERE id = $1
           RETURNING id, balance_micro_usd, held_micro_usd`,
          [g.accountId, granted],
        );
        const account = after[0] as AccountRow;
        await client.query(
          `INSERT INTO ledger_entries (${LEDGER_ENTRY_COLUMNS}) VALUES ($1, 'hold', 0, $2, $3, $4, $5, $6, NULL, $7)`,
          [
            account.id,
            granted,
            account.balance_micro_usd,
            account.held_micro_usd,
            g.entryKey,
            g.leaseId,
            g.now,
          ],
        );
        return { account, grantedMicroUsd: granted };
      });
    },

    async chargeLease(leaseId, charges, now, expiresAt) {
      let running = 0;
      const runningTotals = charges.map((c) => {
        running += c.amountMicroUsd;
        return running;
      });
      const { rows } = await pool.query<AccountRow>({
        name: 'kasir_charge_lease',
        text: CHARGE_LEASE_SQL,
        values: [
          leaseId,
          running,
          now,
          expiresAt,
          charges.map((c) => c.chargeId),
          charges.map((c) => c.amountMicroUsd),
          runningTotals,
          ...usageColumns(charges.map((c) => c.usage)),
        ],
      });
      if (!rows[0]) throw new LeaseClosedError(leaseId);
      return rows[0];
    },

    async insertUsage(rows) {
      if (rows.length === 0) return;
      await pool.query({ name: 'kasir_insert_usage', text: INSERT_USAGE_SQL, values: usageColumns(rows) });
    },

    async adjust(accountId, delta, key, kind, reason, now) {
      try {
        const { rows } = await pool.query<AccountRow>({
          name: 'kasir_adjust',
          text: ADJUST_SQL,
          values: [delta, accountId, key, kind, reason, now],
        });
        if (rows[0]) return { account: rows[0], applied: true };
      } catch (err) {
        // The same key applied concurrently: the other statement won.
        if (!isUniqueViolation(err)) throw err;
        return { account: await accountOf(pool, accountId), applied: false };
      }
      const { rows: seen } = await pool.query({
        name: 'kasir_entry_by_key',
        text: 'SELECT 1 FROM ledger_entries WHERE idempotency_key = $1',
        values: [key],
      });
      const account = await accountOf(pool, accountId);
      if (seen.length > 0) return { account, applied: false };
      throw new InsufficientBalanceError(
        -delta,
        account.balance_micro_usd - account.held_micro_usd,
        account.balance_micro_usd,
      );
    },
  };
}
