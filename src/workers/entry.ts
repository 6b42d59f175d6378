/**
 * A worker thread's task dispatcher: each task names the module and the exported function that does the work
 * (a card's drawing, the face model's inference) and its input. Modules load on a worker's first task of their
 * kind and stay loaded, with whatever they keep (fonts, the face model), for the worker's life. The thread runs
 * at a lower priority than the event loop (thread-priority.ts): when the CPUs are short, the calls the event loop
 * answers come first. A thread under SCHED_IDLE tells the pool its id, so that the pool can lift it from there
 * while it starves (starvation-guard.ts).
 */
import { parentPort } from 'node:worker_threads';
import { workerData } from 'piscina';
import type { WorkerTask } from './task.js';
import { IDLE_THREAD, lowerThreadPriority } from './thread-priority.js';

/** Settles once the thread's priority is lowered (or could not be); the first task waits for it. */
const lowered = lowerThreadPriority(
  (workerData as { priority?: string } | undefined)?.priority === 'idle',
).then((tid) => {
  if (tid !== undefined) parentPort?.postMessage({ [IDLE_THREAD]: tid });
});

export default async function runTask(task: WorkerTask): Promise<unknown> {
  await lowered;
  const mod = (await import(task.module)) as Record<string, unknown>;
  const fn = mod[task.name];
  if (typeof fn !== 'function') throw new Error(`${task.module} exports no function ${task.name}`);
  return (fn as (input: unknown) => unknown)(task.input);
}
