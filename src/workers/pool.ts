/**
 * The worker-thread pool (piscina) that runs CPU-heavy work off the event loop: a bounded number of threads and a
 * bounded queue. It starts on its first task (piscina itself is imported then), so an instance that never draws a
 * card or reads a face starts no thread. `admit()` is what a call asks before its payment: with the queue full it
 * throws a 503 `overloaded` with `Retry-After`, so a refused call is never charged. With 0 threads the tasks run on
 * the event loop, as before the pool existed.
 */
import { fileURLToPath } from 'node:url';
import type { WorkersConfig } from '../config/workers.js';
import type { CallSignal } from '../http/call-signal.js';
import { ApiError } from '../http/errors.js';
import { shippedFile } from '../shipped-files.js';
import { StarvationGuard } from './starvation-guard.js';
import type { TaskRef } from './task.js';
import { IDLE_THREAD, setThreadPolicy, thisProcessCanLeaveIdle } from './thread-priority.js';

type Piscina = import('piscina').Piscina;

export interface WorkerPool {
  /** Throws a 503 `overloaded` (with `Retry-After`) when no task can be queued now; called before any payment. */
  admit(): void;
  /**
   * Runs `task` on a worker thread (or on the event loop with 0 threads); a full queue is a 503 `overloaded`. A
   * call aborted (`signal`) before its task is handed over is not run; once handed over, the task finishes.
   */
  run<T>(task: TaskRef, input: unknown, signal?: CallSignal): Promise<T>;
  /** Tasks waiting for a thread now. */
  readonly waiting: number;
  /** Threads running now (0 until the first task). */
  readonly threads: number;
  /** Under SCHED_IDLE: the threads are lifted to the normal policy for now, their tasks having starved. */
  readonly lifted: boolean;
  /** Stops the threads (tasks still running are abandoned). */
  close(): Promise<void>;
}

/**
 * The worker's entry: the compiled dispatcher in dist/workers/, or, when the pool runs from the TypeScript
 * sources (under Vitest), a JavaScript entry that first lets the thread import .ts files.
 */
const fromSources = import.meta.url.endsWith('.ts');
const ENTRY = shippedFile(fromSources ? 'workers/source-entry.mjs' : 'workers/entry.js');

/** A worker's thread may idle this long before it exits (a new one starts with the next task). */
const IDLE_MS = 60_000;

/**
 * Under SCHED_IDLE, how long tasks may be in flight with none finishing before the threads are lifted to the normal
 * policy (starvation-guard.ts): several times a card's or a face's time on a busy core, so a loaded but working pool
 * keeps its idle policy.
 */
const STARVING_AFTER_MS = 1_000;

/** The 503 of a full queue: nothing was charged, and the caller may retry after `seconds`. */
export function overloaded(seconds: number): ApiError {
  return new ApiError(
    'overloaded',
    'the server is busy with CPU-heavy work; nothing was charged, retry shortly',
    undefined,
    { 'retry-after': String(seconds) },
  );
}

export function createWorkerPool(config: WorkersConfig): WorkerPool {
  let pool: Promise<Piscina> | undefined;
  let started: Piscina | undefined;
  /** Tasks submitted and not yet answered (the queued ones and the running ones). */
  let inFlight = 0;
  /** A moving average of a task's time, in ms, for `Retry-After`. */
  let meanMs = 250;
  // SCHED_IDLE only where the guard can lift the threads from it again (else they could starve without end).
  const idle = config.priority === 'idle' && thisProcessCanLeaveIdle();
  const guard = idle ? new StarvationGuard(STARVING_AFTER_MS, setThreadPolicy) : undefined;

  const start = () => {
    pool ??= import('piscina').then(({ Piscina }) => {
      started = new Piscina({
        filename: fileURLToPath(ENTRY),
        minThreads: 0,
        maxThreads: config.threads,
        // The queue is bounded by admit() and run() counting the tasks in flight; piscina's own bound is a backstop.
        maxQueue: config.queueMax + config.threads,
        idleTimeout: IDLE_MS,
        // How far below the event loop the threads run (entry.ts).
        workerData: { priority: idle ? 'idle' : 'low' },
        // Tasks await libuv and WebAssembly work: between tasks a thread keeps its event loop running.
        atomics: 'disabled',
      });
      started.on('message', (message: unknown) => {
        const tid = (message as Record<string, unknown> | null)?.[IDLE_THREAD];
        if (typeof tid === 'number') guard?.adopt(tid);
      });
      return started;
    });
    return pool;
  };

  const waiting = () => Math.max(0, inFlight - config.threads);
  const retryAfter = () =>
    Math.min(30, Math.max(1, Math.ceil(((waiting() + 1) * meanMs) / config.threads / 1000)));

  async function timed<T>(work: () => Promise<T>): Promise<T> {
    const began = performance.now();
    inFlight++;
    guard?.started();
    try {
      return await work();
    } finally {
      inFlight--;
      guard?.finished();
      meanMs = 0.8 * meanMs + 0.2 * (performance.now() - began);
    }
  }

  async function inline<T>(task: TaskRef, input: unknown): Promise<T> {
    const mod = (await task.load()) as Record<string, (input: unknown) => Promise<T>>;
    const fn = mod[task.name];
    if (!fn) throw new Error(`${task.module} exports no function ${task.name}`);
    return fn(input);
  }

  return {
    admit() {
      if (config.threads > 0 && waiting() >= config.queueMax) throw overloaded(retryAfter());
    },
    async run<T>(task: TaskRef, input: unknown, signal?: CallSignal): Promise<T> {
      if (config.threads === 0) return inline<T>(task, input);
      if (waiting() >= config.queueMax) throw overloaded(retryAfter());
      return timed(async () => {
        const piscina = await start();
        try {
          // The call's signal is not handed to piscina: aborting a running task there terminates its thread,
          // and with it the fonts and the face model the thread loaded. A call gone before its turn is skipped.
          if (signal?.aborted) throw signal.reason;
          return (await piscina.run({ module: task.module, name: task.name, input })) as T;
        } catch (err) {
          if (err instanceof Error && err.message === 'Task queue is at limit')
            throw overloaded(retryAfter());
          throw err;
        }
      });
    },
    get waiting() {
      return waiting();
    },
    get threads() {
      return started?.threads.length ?? 0;
    },
    get lifted() {
      return guard?.lifted ?? false;
    },
    async close() {
      const closing = started;
      pool = undefined;
      started = undefined;
      await closing?.destroy();
    },
  };
}

const shared = new Map<string, WorkerPool>();

/** The process's pool for these settings (every tool, and every test server with the same settings, shares it). */
export function workerPool(config: WorkersConfig): WorkerPool {
  const key = `${config.threads}/${config.queueMax}/${config.priority}`;
  let pool = shared.get(key);
  if (!pool) {
    pool = createWorkerPool(config);
    shared.set(key, pool);
  }
  return pool;
}

/** Stops every pool's threads (at shutdown). */
export async function closeWorkerPools(): Promise<void> {
  await Promise.all([...shared.values()].map((pool) => pool.close()));
}
