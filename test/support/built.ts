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

/** Starts `node dist/main.js` with exactly `env`; resolves once it says it listens, rejects if it exits first. */
export function startBuilt(env: NodeJS.ProcessEnv): Promise<BuiltKasir> {
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
