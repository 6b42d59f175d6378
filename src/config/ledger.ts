/**
 * Settings of the prepaid books: how long a hold may stay open, balance leases, where charges are journalled
 * before their answers leave, and how often the sweeper runs.
 */
import { z } from 'zod';
import { int, type SettingsArea, type Values } from './setting.js';
import type { StorageConfig } from './storage.js';

export const ledgerEnvShape = {
  HOLD_TTL_SECONDS: int(30).default(900),
  PREPAID_LEASE_MICRO_USD: int(0).default(1_000_000),
  PREPAID_LEASE_IDLE_MS: int(50).default(2000),
  CHARGE_JOURNAL: z.enum(['auto', 'file', 'database']).default('auto'),
  SWEEP_INTERVAL_SECONDS: int(0).default(60),
};

export const ledgerSettings: SettingsArea = {
  name: 'ledger',
  shape: ledgerEnvShape,
  rows: [
    {
      vars: ['HOLD_TTL_SECONDS'],
      default: '`900`',
      meaning: 'A hold not settled after this long was left by a crash; the sweeper settles it.',
    },
    {
      vars: ['PREPAID_LEASE_MICRO_USD'],
      default: '`1000000`',
      meaning:
        'The most one balance lease takes from an account (see *Balance leases*); `0` = one database hold per call.',
    },
    {
      vars: ['PREPAID_LEASE_IDLE_MS'],
      default: '`2000`',
      meaning: 'An unused lease goes back to its account after this long.',
    },
    {
      vars: ['CHARGE_JOURNAL'],
      default: '`auto`',
      meaning:
        'Where a charge is journalled before its answer leaves: `database` (rows in PostgreSQL, replayed by any instance; the default with a PostgreSQL `DATABASE_URL`) or `file` (`DATA_DIR/journal/`, replayed by an instance started on the same folder; the default, and the only choice, on SQLite). See *Balance leases*.',
    },
    {
      vars: ['SWEEP_INTERVAL_SECONDS'],
      default: '`60`',
      meaning: 'How often the sweeper runs (also once at start-up); `0` = only at start-up.',
    },
  ],
};

export interface LedgerConfig {
  holdTtlSeconds: number;
  /** The most one balance lease takes from an account; 0 = no leases, one database hold per call. */
  leaseMaxMicroUsd: number;
  /** An unused lease goes back to its account after this long. */
  leaseIdleMs: number;
  /** Where charges are journalled before their answers leave: a file in DATA_DIR, or rows in PostgreSQL. */
  chargeJournal: 'file' | 'database';
  sweepIntervalSeconds: number;
}

export function parseLedger(
  e: Values<typeof ledgerEnvShape>,
  database: StorageConfig['database'],
  problems: string[],
): LedgerConfig {
  if (e.CHARGE_JOURNAL === 'database' && database.kind !== 'postgres')
    problems.push('CHARGE_JOURNAL: "database" needs a PostgreSQL DATABASE_URL (SQLite journals to a file)');
  return {
    holdTtlSeconds: e.HOLD_TTL_SECONDS,
    leaseMaxMicroUsd: e.PREPAID_LEASE_MICRO_USD,
    leaseIdleMs: e.PREPAID_LEASE_IDLE_MS,
    chargeJournal:
      e.CHARGE_JOURNAL === 'auto' ? (database.kind === 'postgres' ? 'database' : 'file') : e.CHARGE_JOURNAL,
    sweepIntervalSeconds: e.SWEEP_INTERVAL_SECONDS,
  };
}
