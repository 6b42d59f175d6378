/**
 * Settings from a file: KASIR_ENV_FILE names a dotenv-style file (`KEY=value` lines, as `npx kasir devnet
 * --env-out` writes) whose settings kasir takes at start, under the ones already in the environment. With
 * KASIR_ENV_FILE_WAIT_SECONDS, a file that is not there yet is waited for (a devnet started in the same breath
 * writes it a few seconds later, atomically), so the two can be started together without a race.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { z } from 'zod';
import { ConfigError } from './error.js';
import type { SettingsArea } from './setting.js';

const POLL_MS = 200;

/** Read here, before the rest of the configuration (the schema only names them). */
export const envFileSettings: SettingsArea = {
  name: 'env-file',
  shape: { KASIR_ENV_FILE: z.string().optional(), KASIR_ENV_FILE_WAIT_SECONDS: z.string().optional() },
  rows: [
    {
      vars: ['KASIR_ENV_FILE'],
      default: '—',
      meaning:
        "A `KEY=value` file (dotenv) whose settings kasir takes at start, under the environment's own; `npx kasir devnet --env-out` writes one.",
    },
    {
      vars: ['KASIR_ENV_FILE_WAIT_SECONDS'],
      default: '`0`',
      meaning:
        'How long kasir waits at start for `KASIR_ENV_FILE` to appear (a devnet started alongside writes it a few seconds later).',
    },
  ],
};

/**
 * The settings of `env.KASIR_ENV_FILE` (none when unset), waiting up to KASIR_ENV_FILE_WAIT_SECONDS for the file;
 * a file still missing after that is a ConfigError naming it.
 */
export async function readEnvFile(env: NodeJS.ProcessEnv): Promise<Record<string, string>> {
  const file = env.KASIR_ENV_FILE?.trim();
  if (!file) return {};
  const rawWait = env.KASIR_ENV_FILE_WAIT_SECONDS?.trim() || '0';
  const waitSeconds = Number(rawWait);
  if (!/^\d{1,5}$/.test(rawWait))
    throw new ConfigError(['KASIR_ENV_FILE_WAIT_SECONDS: must be a whole number of seconds']);
  const deadline = Date.now() + waitSeconds * 1000;
  let announced = false;
  while (!existsSync(file)) {
    if (Date.now() >= deadline) {
      throw new ConfigError([
        `KASIR_ENV_FILE: ${file} does not exist${waitSeconds ? ` after waiting ${waitSeconds} s` : ''} (start \`npx kasir devnet --env-out ${file}\`, or set KASIR_ENV_FILE_WAIT_SECONDS to wait for it)`,
      ]);
    }
    if (!announced) console.error(`kasir: waiting up to ${waitSeconds} s for ${file}`);
    announced = true;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return parseEnv(readFileSync(file, 'utf8')) as Record<string, string>;
}

/** Puts the file's settings into `env` where it has none (the environment wins over the file). */
export async function applyEnvFile(env: NodeJS.ProcessEnv): Promise<string[]> {
  const fromFile = await readEnvFile(env);
  const taken: string[] = [];
  for (const [key, value] of Object.entries(fromFile)) {
    if (env[key] !== undefined) continue;
    env[key] = value;
    taken.push(key);
  }
  return taken;
}
