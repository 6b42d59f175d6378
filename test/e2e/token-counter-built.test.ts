// The built service (dist/, as `npm start` runs it) builds its token counter once it listens when it sells chat, so
// that its first chat call does not wait through the build; a service that sells no chat never builds it.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

interface Started {
  child: ChildProcess;
  /** Every log line written so far (stdout). */
  lines: () => Array<Record<string, unknown>>;
  url: string;
}

const children: ChildProcess[] = [];
const dirs: string[] = [];

/** Starts dist/main.js with `env` on top of a fresh data folder, resolving once it listens. */
function start(env: Record<string, string>): Promise<Started> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kasir-tokens-'));
  dirs.push(dataDir);
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: root,
    // Only what a start needs: no provider setting of the environment the tests run in may reach it.
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  const lines = () =>
    out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stderr?.on('data', (chunk) => {
      seen += chunk;
      const m = /listening on (http:\/\/[^\s]+:\d+)/.exec(seen);
      if (m?.[1]) resolve({ child, lines, url: m[1] });
    });
    child.once('exit', (code) => reject(new Error(`dist/main.js exited with ${code}: ${seen}`)));
  });
}

const built = (s: Started) => s.lines().find((l) => l.msg === 'token counter built');

async function until<T>(what: () => T | undefined, ms: number): Promise<T | undefined> {
  const end = Date.now() + ms;
  for (;;) {
    const found = what();
    if (found !== undefined || Date.now() > end) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('the built service’s token counter', () => {
  beforeAll(() => {
    execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: root, stdio: 'inherit' });
  });

  afterEach(() => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('is built once the service listens when it sells chat, before any chat call', async () => {
    // A chat provider that is never called: the build must not wait for a call.
    const s = await start({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    const line = await until(() => built(s), 20_000);
    expect(line).toBeDefined();
    expect(line?.ms).toBeGreaterThan(0);
  });

  it('is not built by a service that sells no chat', async () => {
    const s = await start({});
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
    // The log is written in batches (every 500 ms at most): 3 s is several of them.
    expect(await until(() => built(s), 3_000)).toBeUndefined();
    expect(s.lines().some((l) => l.msg === 'request')).toBe(true);
  });
});
