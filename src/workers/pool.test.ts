// The worker pool: threads started on first use, 0 threads on the event loop, overload refused with 503.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { threadId } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { HOLD, KERNEL_THREAD, SPIN, WORK } from '../../test/support/worker-task.js';
import { ApiError } from '../http/errors.js';
import { createWorkerPool } from './pool.js';

const spin = (ms: number) => ({ ms });

const linux = process.platform === 'linux';
/** The policy the kernel holds for a thread, as an operator reads it. */
const policy = (tid: number) => execFileSync('chrt', ['-p', String(tid)], { encoding: 'utf8' });
/** A thread's nice value, from /proc. */
const nice = (tid: number) => {
  // The fields after the name (which may hold spaces and ends with ')'); the nice value is the 19th field.
  const stat = readFileSync(`/proc/${process.pid}/task/${tid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
};

describe('the worker pool', () => {
  const pools: Array<ReturnType<typeof createWorkerPool>> = [];
  const pool = (threads: number, queueMax: number, priority: 'low' | 'idle' = 'low') => {
    const p = createWorkerPool({ threads, queueMax, priority });
    pools.push(p);
    return p;
  };
  afterAll(() => Promise.all(pools.map((p) => p.close())));

  it('starts no thread until its first task, then runs tasks off the main thread', async () => {
    const p = pool(1, 4);
    p.admit();
    expect(p.threads).toBe(0);
    const ran = await p.run<{ threadId: number }>(SPIN, spin(1));
    expect(ran.threadId).not.toBe(threadId);
    expect(p.threads).toBe(1);
  }, 60_000);

  it('with 0 threads runs the task on the event loop', async () => {
    const p = pool(0, 1);
    const ran = await Promise.all([p.run<{ threadId: number }>(SPIN, spin(1)), p.run(SPIN, spin(1))]);
    expect(ran[0]?.threadId).toBe(threadId);
    expect(p.threads).toBe(0);
  });

  it('refuses with a 503 overloaded and Retry-After once every thread is busy and the queue is full', async () => {
    const p = pool(1, 2);
    const running = [p.run(HOLD, spin(3000)), p.run(HOLD, spin(10)), p.run(HOLD, spin(10))];
    expect(p.waiting).toBe(2);
    let refused: unknown;
    try {
      p.admit();
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(ApiError);
    const error = refused as ApiError;
    expect(error.status).toBe(503);
    expect(error.code).toBe('overloaded');
    expect(Number(error.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    await expect(p.run(SPIN, spin(1))).rejects.toMatchObject({ code: 'overloaded', status: 503 });
    await Promise.all(running);
    expect(p.waiting).toBe(0);
    expect(() => p.admit()).not.toThrow();
  }, 60_000);

  it('keeps the event loop free while the threads work', async () => {
    const p = pool(1, 8);
    await p.run(SPIN, spin(1)); // the thread is up
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    await Promise.all(Array.from({ length: 4 }, () => p.run(SPIN, spin(400))));
    delay.disable();
    // Four tasks of 400 ms of CPU each ran; on the event loop the longest stall would have been 400 ms or more. The
    // bound leaves room for the scheduler of a machine busy with other test files (a stall of 102 ms was seen).
    expect(delay.max / 1e6).toBeLessThan(250);
  }, 60_000);

  it.runIf(linux)(
    'runs its threads at nice 10, and under SCHED_IDLE with priority idle; the event loop keeps the normal policy',
    async () => {
      const low = await pool(1, 4).run<{ tid: number | undefined }>(KERNEL_THREAD, {});
      expect(low.tid).toBeGreaterThan(0);
      expect(policy(low.tid ?? 0)).toMatch(/scheduling policy: SCHED_OTHER/);
      expect(nice(low.tid ?? 0)).toBe(10);
      const idle = await pool(1, 4, 'idle').run<{ tid: number | undefined }>(KERNEL_THREAD, {});
      expect(policy(idle.tid ?? 0)).toMatch(/scheduling policy: SCHED_IDLE/);
      expect(policy(process.pid)).toMatch(/SCHED_OTHER/);
    },
    60_000,
  );

  it.runIf(linux)(
    'lifts SCHED_IDLE threads to the normal policy while their tasks starve, and back once the pool is empty',
    async () => {
      const p = pool(1, 4, 'idle');
      const { tid = 0 } = await p.run<{ tid: number | undefined }>(KERNEL_THREAD, {});
      expect(policy(tid)).toMatch(/SCHED_IDLE/);
      // The thread and a process that never sleeps share one core: under SCHED_IDLE the thread gets a fraction of a
      // percent of it, and about a tenth at nice 10. The task needs some 0.1 s of CPU: about half a minute starved.
      execFileSync('taskset', ['-pc', '0', String(tid)]);
      const hog = spawn('taskset', ['-c', '0', process.execPath, '-e', 'for (;;) {}'], { stdio: 'ignore' });
      try {
        const began = performance.now();
        const done = p.run<{ value: number }>(WORK, { iterations: 100_000_000 });
        done.catch(() => {}); // awaited below; a failed expectation before that must not leave it unhandled
        await expect.poll(() => policy(tid), { timeout: 10_000, interval: 100 }).toMatch(/SCHED_OTHER/);
        expect(p.lifted).toBe(true);
        expect(nice(tid)).toBe(10);
        await done;
        expect(performance.now() - began).toBeLessThan(20_000);
      } finally {
        hog.kill('SIGKILL');
      }
      await expect.poll(() => policy(tid), { timeout: 10_000, interval: 100 }).toMatch(/SCHED_IDLE/);
      expect(p.lifted).toBe(false);
    },
    60_000,
  );
});
