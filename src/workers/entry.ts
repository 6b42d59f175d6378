/**
 * A worker thread's task dispatcher: each task names the module and the exported function that does the work
 * (a card's drawing, the face model's inference) and its input. Modules load on a worker's first task of their
 * kind and stay loaded, with whatever they keep (fonts, the face model), for the worker's life. The thread runs
 * at a lower priority than the event loop: when the CPUs are short, the calls the event loop answers come first.
 */
import { setPriority } from 'node:os';
import type { WorkerTask } from './task.js';

/** The thread's nice value (Linux keeps one per thread; 0 is the event loop's). */
const WORKER_NICE = 10;

try {
  setPriority(0, WORKER_NICE);
} catch {
  // Not every platform lets a thread lower its own priority; the work runs at the usual one then.
}

export default async function runTask(task: WorkerTask): Promise<unknown> {
  const mod = (await import(task.module)) as Record<string, unknown>;
  const fn = mod[task.name];
  if (typeof fn !== 'function') throw new Error(`${task.module} exports no function ${task.name}`);
  return (fn as (input: unknown) => unknown)(task.input);
}
