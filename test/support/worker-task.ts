// Tasks for tests of the worker pool: `spin` keeps its thread busy computing for a while, `hold` keeps it taken
// without using the CPU (a queue filled on a busy machine stays filled as long as asked); both say which thread ran
// them. `work` does a fixed amount of computing, however long the thread waits for a CPU to do it on.
import { threadId } from 'node:worker_threads';
import type { TaskRef } from '../../src/workers/task.js';
import { threadId as kernelThreadId } from '../../src/workers/thread-priority.js';

export function spin(input: { ms: number }): { threadId: number } {
  const until = performance.now() + input.ms;
  while (performance.now() < until) {
    // busy, as a card's layout is
  }
  return { threadId };
}

export function work(input: { iterations: number }): { value: number } {
  let x = 1;
  for (let i = 0; i < input.iterations; i++) x = (Math.imul(x, 1_103_515_245) + 12_345) | 0;
  return { value: x };
}

export function hold(input: { ms: number }): { threadId: number } {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, input.ms);
  return { threadId };
}

export const SPIN: TaskRef = {
  module: new URL('./worker-task.js', import.meta.url).href,
  name: 'spin',
  load: () => import('./worker-task.js'),
};

export const HOLD: TaskRef = { ...SPIN, name: 'hold' };

export const WORK: TaskRef = { ...SPIN, name: 'work' };

/** The kernel's id of the thread running the task (Linux), to read its scheduling policy from outside. */
export function kernelThread(): { tid: number | undefined } {
  return { tid: kernelThreadId() };
}

export const KERNEL_THREAD: TaskRef = { ...SPIN, name: 'kernelThread' };
