/** Migration 002: prepaid accounts, API keys, holds, the append-only ledger, usage records, idempotency records. */
import { type ColumnDefinitionBuilder, type Kysely, type Migration, sql } from 'kysely';
import type { DbKind } from '../db.js';

export function m002Ledger(kind: DbKind): Migration {
  const serial = kind === 'postgres' ? 'bigserial' : 'integer';
  // bigserial already auto-increments; SQLite needs INTEGER PRIMARY KEY AUTOINCREMENT.
  const serialKey = (c: ColumnDefinitionBuilder) =>
    kind === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement();
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('accounts')
        .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
        .addColumn('label', 'varchar(200)')
        .addColumn('balance_micro_usd', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('held_micro_usd', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('rate_limit_per_minute', 'integer')
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        // The database itself refuses a negative balance or more held than the balance.
        .addCheckConstraint('accounts_balance_nonnegative', sql`balance_micro_usd >= 0`)
        .addCheckConstraint(
          'accounts_held_within_balance',
          sql`held_micro_usd >= 0 and held_micro_usd <= balance_micro_usd`,
        )
        .execute();

      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
        .addColumn('account_id', 'varchar(40)', (c) => c.notNull().references('accounts.id'))
        .addColumn('prefix', 'varchar(32)', (c) => c.notNull())
        .addColumn('hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('label', 'varchar(200)')
        .addColumn('spend_cap_micro_usd', 'bigint')
        .addColumn('spent_micro_usd', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('held_micro_usd', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('rate_limit_per_minute', 'integer')
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('revoked_at', 'varchar(32)')
        .addCheckConstraint('api_keys_spend_nonnegative', sql`spent_micro_usd >= 0 and held_micro_usd >= 0`)
        .execute();
      await db.schema.createIndex('api_keys_account').on('api_keys').column('account_id').execute();

      await db.schema
        .createTable('holds')
        .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
        .addColumn('account_id', 'varchar(40)', (c) => c.notNull().references('accounts.id'))
        .addColumn('key_id', 'varchar(40)')
        .addColumn('amount_micro_usd', 'bigint', (c) => c.notNull())
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('delivered', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('key_capped', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('offer_id', 'varchar(200)', (c) => c.notNull())
        .addColumn('request_id', 'varchar(128)', (c) => c.notNull())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('settled_at', 'varchar(32)')
        .addCheckConstraint('holds_amount_positive', sql`amount_micro_usd > 0`)
        .execute();
      // Only open holds are ever looked up by expiry (the sweeper): a partial index stays small.
      await db.schema
        .createIndex('holds_open_expiry')
        .on('holds')
        .column('expires_at')
        .where(sql.ref('status'), '=', 'open')
        .execute();

      await db.schema
        .createTable('ledger_entries')
        .addColumn('id', serial, serialKey)
        .addColumn('account_id', 'varchar(40)', (c) => c.notNull().references('accounts.id'))
        .addColumn('kind', 'varchar(16)', (c) => c.notNull())
        .addColumn('amount_micro_usd', 'bigint', (c) => c.notNull())
        .addColumn('held_delta_micro_usd', 'bigint', (c) => c.notNull())
        .addColumn('balance_after_micro_usd', 'bigint', (c) => c.notNull())
        .addColumn('held_after_micro_usd', 'bigint', (c) => c.notNull())
        .addColumn('idempotency_key', 'varchar(200)', (c) => c.notNull().unique())
        .addColumn('hold_id', 'varchar(40)')
        .addColumn('reason', 'varchar(500)')
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('ledger_entries_account')
        .on('ledger_entries')
        .columns(['account_id', 'id'])
        .execute();

      await db.schema
        .createTable('usage_records')
        .addColumn('id', serial, serialKey)
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('request_id', 'varchar(128)', (c) => c.notNull())
        .addColumn('rail', 'varchar(32)', (c) => c.notNull())
        .addColumn('account_id', 'varchar(40)')
        .addColumn('key_id', 'varchar(40)')
        .addColumn('payer', 'varchar(200)')
        .addColumn('offer_id', 'varchar(200)', (c) => c.notNull())
        .addColumn('quote_micro_usd', 'bigint', (c) => c.notNull())
        .addColumn('charged_micro_usd', 'bigint', (c) => c.notNull())
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('http_status', 'integer', (c) => c.notNull())
        .addColumn('latency_ms', 'integer', (c) => c.notNull())
        .addColumn('error_code', 'varchar(64)')
        .execute();
      await db.schema
        .createIndex('usage_records_account')
        .on('usage_records')
        .columns(['account_id', 'id'])
        .execute();

      await db.schema
        .createTable('idempotency_records')
        .addColumn('key', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('request_hash', 'varchar(64)', (c) => c.notNull())
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('response_status', 'integer')
        .addColumn('response_headers', 'text')
        .addColumn('response_body', 'text')
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .execute();
    },
  };
}
