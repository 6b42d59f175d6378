/** Settings from a JSON file: KASIR_CONFIG_FILE names an object whose keys are the variable names (the environment wins). */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from './error.js';
import type { SettingsArea } from './setting.js';

/** The settings' raw text, by variable name (the environment, or the file's values as text). */
export type RawEnv = Record<string, string | undefined>;

export const configFileSettings: SettingsArea = {
  name: 'config-file',
  shape: { KASIR_CONFIG_FILE: z.string().optional() },
  rows: [{ vars: ['KASIR_CONFIG_FILE'], default: '—', meaning: 'Optional JSON file of the settings above.' }],
};

/** The file's settings (none without a file); an unreadable file or one that is not an object is a ConfigError. */
export function readConfigFile(file: string | undefined): RawEnv {
  if (!file) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError([`KASIR_CONFIG_FILE: cannot read ${file}: ${(err as Error).message}`]);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError(['KASIR_CONFIG_FILE: must hold a JSON object of setting names to values']);
  }
  return Object.fromEntries(
    Object.entries(parsed as Record<string, unknown>).map(([k, v]) => [
      k,
      v === null ? undefined : String(v),
    ]),
  );
}
