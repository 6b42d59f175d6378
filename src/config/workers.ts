/**
 * Settings of the worker threads that take CPU-heavy work off the event loop (card drawing: satori's layout and
 * resvg's PNG encoding; the face model's inference): how many threads, and how many tasks may wait for one.
 */
import { z } from 'zod';
import { int, type SettingsArea } from './setting.js';

export const workersEnvShape = {
  WORKER_THREADS: int(0, 64).optional(),
  WORKER_QUEUE_MAX: int(1, 100_000).default(32),
  WORKER_PRIORITY: z.enum(['low', 'idle']).default('idle'),
};

export interface WorkersConfig {
  /** Worker threads at most (0: the work runs on the event loop, as a single-threaded kasir did). */
  threads: number;
  /** Tasks that may wait for a free thread; a call arriving when they are all taken is refused (503) before payment. */
  queueMax: number;
  /**
   * How far below the event loop the threads run: `low` is nice 10 (a smaller share of a busy CPU); `idle` is Linux's
   * SCHED_IDLE (only CPU time nothing else wants: the event loop takes a core from a thread the moment it wakes),
   * lifted to nice 10 while the threads starve (workers/starvation-guard.ts).
   */
  priority: 'low' | 'idle';
}

/** A core left to the event loop, at most two threads, at least one. */
export function defaultWorkerThreads(cores: number): number {
  return Math.max(1, Math.min(2, cores - 1));
}

export function parseWorkers(e: Record<string, unknown>, cores: number): WorkersConfig {
  return {
    threads: e.WORKER_THREADS === undefined ? defaultWorkerThreads(cores) : Number(e.WORKER_THREADS),
    queueMax: Number(e.WORKER_QUEUE_MAX),
    priority: e.WORKER_PRIORITY === 'low' ? 'low' : 'idle',
  };
}

/** The settings' defaults on a machine of `cores` cores. */
export function defaultWorkers(cores: number): WorkersConfig {
  return parseWorkers(z.object(workersEnvShape).parse({}), cores);
}

export const workersSettings: SettingsArea = {
  name: 'workers',
  shape: workersEnvShape,
  rows: [
    {
      vars: ['WORKER_THREADS'],
      default: 'CPU cores − 1, within 1..2',
      meaning:
        "Worker threads for CPU-heavy work (cards' layout and PNG encoding, the face model), started on the first such call and run at a lower priority than the event loop (`WORKER_PRIORITY`); `0` runs the work on the event loop, where one card holds every other request up. Each thread that has run a face call keeps its own copy of the face model (about 180 MB).",
    },
    {
      vars: ['WORKER_QUEUE_MAX'],
      default: '`32`',
      meaning:
        'Tasks that may wait for a worker thread; a card or face call arriving when the queue is full answers 503 `overloaded` with `Retry-After`, before any payment.',
    },
    {
      vars: ['WORKER_PRIORITY'],
      default: '`idle`',
      meaning:
        "How the worker threads yield to the event loop. `idle`: Linux's SCHED_IDLE (set with util-linux's `chrt`), where a waking event loop takes the CPU from them at once, so paid calls keep their latency while cards and faces render (`bench/workers.mjs`); when tasks are in flight and none has finished for a second (other processes keep every core busy), the threads go back to the normal policy at nice 10 until the pool is empty again, so a card or face call is slowed, never stalled. `low`: nice 10 always (a smaller share of a busy core, but a waking event loop may wait for a thread's time slice). Where `chrt` or SCHED_IDLE is missing, or the process may not lift its threads back (that takes CAP_SYS_NICE, as root has, or an RLIMIT_NICE of 10 or more: `docker run --ulimit nice=10`, as `compose.yaml` sets), `idle` is `low`.",
    },
  ],
};
