// KASIR_ENV_FILE: settings from a dotenv file under the environment's own, a file waited for while it is written,
// and a missing one named in a configuration error; and the rails kasir names at start.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envFileText, writeAtomically } from '../devnet/command.js';
import { railSummary } from '../rails/summary.js';
import { applyEnvFile } from './env-file.js';
import { ConfigError } from './error.js';
import { loadConfig } from './load.js';

describe('KASIR_ENV_FILE', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'kasir-env-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('takes the settings the environment lacks, and keeps those it has', async () => {
    const file = path.join(dir, 'a.env');
    writeAtomically(file, envFileText({ X402_BASE_PAY_TO: '0xabc', PORT: '9999' }));
    const env: NodeJS.ProcessEnv = { KASIR_ENV_FILE: file, PORT: '8402' };
    expect(await applyEnvFile(env)).toEqual(['X402_BASE_PAY_TO']);
    expect(env).toMatchObject({ X402_BASE_PAY_TO: '0xabc', PORT: '8402' });
  });

  it('waits for a file written a moment later, and names a file that never comes', async () => {
    const file = path.join(dir, 'late', 'devnet.env');
    setTimeout(() => writeAtomically(file, envFileText({ MPP_TEMPO_CHAIN_ID: '1337' })), 300);
    const env: NodeJS.ProcessEnv = { KASIR_ENV_FILE: file, KASIR_ENV_FILE_WAIT_SECONDS: '10' };
    await applyEnvFile(env);
    expect(env.MPP_TEMPO_CHAIN_ID).toBe('1337');
    const missing = { KASIR_ENV_FILE: path.join(dir, 'never.env') };
    await expect(applyEnvFile(missing)).rejects.toThrow(ConfigError);
    await expect(applyEnvFile(missing)).rejects.toThrow(/never\.env does not exist/);
  });

  it('has the rails say which are on and what turns the others on', async () => {
    const lines = railSummary(loadConfig({}));
    expect(lines).toContain('prepaid: on (API keys)');
    expect(lines).toContain('x402 base: off (set X402_BASE_PAY_TO)');
    expect(lines).toContain('mpp tempo: off (set MPP_TEMPO_RECIPIENT)');
  });
});
