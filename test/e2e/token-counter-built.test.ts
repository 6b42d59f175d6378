// The built service (dist/, as `npm start` runs it) builds its token counter once it listens when it sells chat, so
// that its first chat call does not wait through the build; a service that sells no chat never builds it.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltKasir, buildIfStale, builtEnv, startBuilt } from '../support/built.js';

const children: ChildProcess[] = [];
const dirs: string[] = [];

/** Starts the built service with `env` on top of a fresh data folder. */
async function start(env: Record<string, string>): Promise<BuiltKasir> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kasir-tokens-'));
  dirs.push(dataDir);
  const started = await startBuilt(builtEnv(dataDir, { LOG_LEVEL: 'info', ...env }));
  children.push(started.child);
  return started;
}

const built = (s: BuiltKasir) => s.logLines().find((l) => l.msg === 'token counter built');

describe('the built service’s token counter', () => {
  beforeAll(() => {
    buildIfStale();
  });

  afterEach(() => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('is built once the service listens when it sells chat, before any chat call', async () => {
    // A chat provider that is never called: the build must not wait for a call.
    const s = await start({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    await expect.poll(() => built(s), { timeout: 20_000 }).toBeDefined();
    expect(built(s)?.ms).toBeGreaterThan(0);
  });

  it('is not built by a service that sells no chat', async () => {
    const s = await start({});
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
    // The log is written in batches (every 500 ms at most): 3 s is several of them.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(built(s)).toBeUndefined();
    expect(s.logLines().some((l) => l.msg === 'request')).toBe(true);
  });
});
