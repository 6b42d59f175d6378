// A worker thread's entry point when it is started from the TypeScript sources (under Vitest): registers the hooks
// that let the thread import .ts files, then loads the module the thread runs: the pool's task dispatcher (the same
// one the built service uses), or the `sourceEntry` a thread of its own names in its workerData (the SQLite
// checkpointer; piscina's threads carry piscina's own workerData, which names none).
import { register } from 'node:module';
import { workerData } from 'node:worker_threads';

register('./source-hooks.mjs', import.meta.url);
const { default: runTask } = await import(workerData?.sourceEntry ?? './entry.ts');

export default runTask;
