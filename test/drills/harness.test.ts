// The drills' scratch space: when a test's signal aborts (its timeout), the drill rejects at once and leaves no
// process running, even one its body starts after the abort.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { buildIfStale } from '../support/built.js';
import { withDrill } from './harness.mjs';

const idleChild = () => spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });

describe('withDrill', () => {
  it('rejects as soon as its signal aborts, killing its children and any started later, and running its clean-ups', async () => {
    buildIfStale();
    const aborted = new AbortController();
    const first = idleChild();
    let late: ChildProcess | undefined;
    let cleanedUp = 0;
    let lateCleanUp = false;
    let bodyGoesOn!: () => void;
    const drill = withDrill('sqlite', aborted.signal, async (space) => {
      space.children.add(first);
      space.atEnd(async () => {
        cleanedUp++;
      });
      // Still working when the test gives up on it: a restart under way, say.
      await new Promise<void>((r) => {
        bodyGoesOn = r;
      });
      late = idleChild();
      space.children.add(late);
      space.atEnd(async () => {
        lateCleanUp = true;
      });
      throw new Error('its processes are gone');
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(first.exitCode === null && first.signalCode === null).toBe(true);
    aborted.abort(new Error('the test timed out'));
    await expect(drill).rejects.toThrow('the test timed out');
    if (first.signalCode === null) await once(first, 'exit');
    expect(first.signalCode).toBe('SIGKILL');
    expect(cleanedUp).toBe(1);
    bodyGoesOn();
    await expect.poll(() => late).toBeDefined();
    if (late?.signalCode === null) await once(late, 'exit');
    expect(late?.signalCode).toBe('SIGKILL');
    expect(lateCleanUp).toBe(true);
  });

  it('resolves with what its body returns when its signal never aborts', async () => {
    buildIfStale();
    await expect(withDrill('sqlite', new AbortController().signal, async () => 42)).resolves.toBe(42);
  });
});
