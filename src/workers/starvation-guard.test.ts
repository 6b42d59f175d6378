// The starvation guard: SCHED_IDLE threads lifted only when the pool stops making progress, and put back once empty.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StarvationGuard } from './starvation-guard.js';
import { idleCanBeLeft } from './thread-priority.js';

describe('the starvation guard', () => {
  let calls: Array<[number, boolean]>;
  let known: Set<number>;
  const setPolicy = async (tid: number, idle: boolean) => {
    calls.push([tid, idle]);
    return known.has(tid);
  };
  const guard = () => new StarvationGuard(1_000, setPolicy, () => Date.now());
  beforeEach(() => {
    vi.useFakeTimers();
    calls = [];
    known = new Set([11, 12, 13]);
  });
  afterEach(() => vi.useRealTimers());

  it('leaves a pool alone while its tasks keep finishing, however long it stays busy', async () => {
    const g = guard();
    g.adopt(11);
    g.started();
    for (let i = 0; i < 20; i++) {
      g.started();
      await vi.advanceTimersByTimeAsync(600);
      g.finished();
    }
    expect(calls).toEqual([]);
    expect(g.lifted).toBe(false);
  });

  it('lifts every thread once no task has finished for the grace period, and puts them back when the pool empties', async () => {
    const g = guard();
    g.adopt(11);
    g.adopt(12);
    g.started();
    g.started();
    await vi.advanceTimersByTimeAsync(999);
    expect(calls).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(g.lifted).toBe(true);
    expect(calls).toEqual([
      [11, false],
      [12, false],
    ]);
    // A thread that starts while the pool is lifted is lifted at once.
    g.adopt(13);
    expect(calls.at(-1)).toEqual([13, false]);
    g.finished();
    expect(g.lifted).toBe(true); // one task still in flight
    g.finished();
    expect(g.lifted).toBe(false);
    expect(calls.slice(-3)).toEqual([
      [11, true],
      [12, true],
      [13, true],
    ]);
  });

  it('counts the grace period from the last task to finish', async () => {
    const g = guard();
    g.adopt(11);
    g.started();
    g.started();
    await vi.advanceTimersByTimeAsync(800);
    g.finished();
    await vi.advanceTimersByTimeAsync(900);
    expect(g.lifted).toBe(false);
    await vi.advanceTimersByTimeAsync(100);
    expect(g.lifted).toBe(true);
  });

  it('forgets a thread whose policy can no longer be set (it exited)', async () => {
    const g = guard();
    g.adopt(11);
    g.adopt(99);
    g.started();
    await vi.advanceTimersByTimeAsync(1_000);
    g.finished();
    await vi.advanceTimersByTimeAsync(0);
    g.started();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(calls.filter(([tid]) => tid === 99)).toEqual([[99, false]]);
  });
});

describe('whether a process may leave SCHED_IDLE', () => {
  const limits = (soft: string) =>
    `Limit                     Soft Limit           Hard Limit           Units     \nMax nice priority         ${soft}                    ${soft}                    \n`;
  it('may with CAP_SYS_NICE (root), whatever its nice limit', () => {
    expect(idleCanBeLeft('Name:\tnode\nCapEff:\t000001fffeffffff\n', limits('0'))).toBe(true);
  });
  it('may not as an unprivileged user with the default nice limit', () => {
    expect(idleCanBeLeft('CapEff:\t0000000000000000\n', limits('0'))).toBe(false);
    expect(idleCanBeLeft('CapEff:\t0000000000000000\n', limits('9'))).toBe(false);
  });
  it('may with a nice limit of 10 or more (docker run --ulimit nice=10)', () => {
    expect(idleCanBeLeft('CapEff:\t0000000000000000\n', limits('10'))).toBe(true);
    expect(idleCanBeLeft('CapEff:\t0000000000000000\n', limits('unlimited'))).toBe(true);
  });
});
