/**
 * A worker thread's task dispatcher: each task names the module and the exported function that does the work
 * (a card's drawing, the face model's inference) and its input. Modules load on a worker's first task of their
 * kind and stay loaded, with whatever they keep (fonts, the face model), for the worker's life.
 */
import type { WorkerTask } from './task.js';

export default async function runTask(task: WorkerTask): Promise<unknown> {
  const mod = (await import(task.module)) as Record<string, unknown>;
  const fn = mod[task.name];
  if (typeof fn !== 'function') throw new Error(`${task.module} exports no function ${task.name}`);
  return (fn as (input: unknown) => unknown)(task.input);
}
