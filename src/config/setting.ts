/**
 * What an area of settings declares: the zod schema of its environment variables and the rows that document them
 * (the README's configuration tables are rendered from these rows and checked against the schema).
 */
import { z } from 'zod';

/** One row of a README configuration table: one setting, or a few that go together. */
export interface SettingRow {
  /** Every environment variable the row documents. */
  vars: readonly string[];
  /** The first cell, when it is not simply the variables in backticks (a pattern such as `X402_<C>_PAY_TO`). */
  label?: string;
  /** The default, as the README shows it. */
  default: string;
  /** What the setting means, on one line. */
  meaning: string;
}

/** One area of settings (one file of src/config): its variables' schema and their documentation. */
export interface SettingsArea {
  /** The area's name, as the README's `<!-- settings: … -->` markers list it. */
  name: string;
  /** The table's header when it is not `Variable | Default | Meaning`. */
  columns?: readonly [string, string, string];
  /** Each environment variable's zod schema (a missing variable is `undefined`). */
  shape: Readonly<Record<string, z.ZodType>>;
  rows: readonly SettingRow[];
}

/** Whole numbers from a setting's text, within bounds. */
export const int = (min: number, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max);

/** `true`, `1`, `yes` (or `false`, `0`, `no`, empty). */
export const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** A string where empty means unset. */
export const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === '' ? undefined : v));

/** The validated values of a shape, typed. */
export type Values<S extends Record<string, z.ZodType>> = { [K in keyof S]: z.infer<S[K]> };
