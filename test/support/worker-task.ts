// A task for tests of the worker pool: keeps its thread busy for a while (CPU, not a timer) and says which thread
// ran it.
import { threadId } from 'node:worker_threads';
import type { TaskRef } from '../../src/workers/task.js';

export function spin(input: { ms: number }): { threadId: number } {
  const until = performance.now() + input.ms;
  while (performance.now() < until) {
    // busy, as a card's layout is
  }
  return { threadId };
}

export const SPIN: TaskRef = {
  module: new URL('./worker-task.js', import.meta.url).href,
  name: 'spin',
  load: () => import('./worker-task.js'),
};
