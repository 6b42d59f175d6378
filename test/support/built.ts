// The service as `npm start` runs it: the compiled code in dist/, built first when src/ is newer, and started as a
// process of its own.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

/** Builds dist/ unless it is newer than every source (scripts/build.mjs --if-stale). */
export function buildIfStale(): void {
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: root, stdio: 'inherit' });
}

export interface BuiltKasir {
  child: ChildProcess;
  url: string;
  /** The JSON log lines it has written to stdout so far. */
  logLines(): Array<Record<string, unknown>>;
}

/**
 * What a built service is started with: no setting of the environment the tests run in (a provider key, say) may
 * reach it, only PATH, a free port on 127.0.0.1 and its own data folder, with `env` on top.
 */
export function builtEnv(dataDir: string, env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, ...env };
}

/** Spawns `node dist/main.js` with exactly `env`, its stdout and stderr piped. */
export function spawnBuilt(env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, ['dist/main.js'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** How the process ended: at once if it already has, else when it does. */
export function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** Starts `node dist/main.js` with exactly `env`; resolves once it says it listens, rejects if it exits first. */
export function startBuilt(env: NodeJS.ProcessEnv): Promise<BuiltKasir> {
  const child = spawnBuilt(env);
  let out = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  const logLines = () =>
    out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stderr?.on('data', (chunk) => {
      seen += chunk;
      const m = /listening on (http:\/\/[^\s]+:\d+)/.exec(seen);
      if (m?.[1]) resolve({ child, url: m[1], logLines });
    });
    child.once('exit', (code) => reject(new Error(`dist/main.js exited with ${code}: ${seen}`)));
  });
}
