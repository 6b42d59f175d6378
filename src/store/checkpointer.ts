/**
 * SQLite's write-ahead log, checkpointed on a thread of its own instead of inside the server's commits. SQLite runs
 * an automatic checkpoint in whichever commit finds the log past its threshold: that commit then copies every page
 * the log holds back into the database file and syncs both files to disk, and on the event loop that held every
 * request of the instance for 50–60 ms every few seconds under paid load (a CPU profile of the funded-call benchmark
 * showed those commits as its longest tasks). Here the server's connection never checkpoints; a thread with its own
 * connection runs a PASSIVE checkpoint every second, which copies what it can alongside the server's writes. Its
 * disk syncs wait on that thread, not on the event loop. Should the thread fail to start or die, the server's
 * connection checkpoints again by itself, so the log never grows without bound.
 */
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';
import { shippedFile } from '../shipped-files.js';
import type { CheckpointReport, CheckpointThreadData } from './checkpoint-thread.js';

/** Pages of log after which the server's own connection checkpoints when no thread does it. */
export const AUTOCHECKPOINT_PAGES = 10_000;
/** How often the thread checkpoints. */
export const CHECKPOINT_INTERVAL_MS = 1_000;
/** How long stop() waits for the thread to finish a checkpoint and close its connection. */
const STOP_WAIT_MS = 5_000;

const fromSources = import.meta.url.endsWith('.ts');

export interface Checkpointer {
  /** The latest report of the thread (undefined before its first checkpoint). */
  readonly last: CheckpointReport | undefined;
  /** Whether the thread is checkpointing (false once it stopped or died: the server's connection does it then). */
  readonly running: boolean;
  /** Stops the thread; the server's connection checkpoints by itself again. */
  stop(): Promise<void>;
}

/** Moves the checkpoints of `sqlite` (the server's connection to `file`) to a thread of their own. */
export function startCheckpointer(
  sqlite: SQLite.Database,
  file: string,
  intervalMs = CHECKPOINT_INTERVAL_MS,
): Checkpointer {
  const data: CheckpointThreadData & { sourceEntry?: string } = { file, intervalMs };
  // Under Vitest the thread starts from the TypeScript sources, through the workers' entry that can load them.
  if (fromSources) data.sourceEntry = shippedFile('store/checkpoint-thread.ts').href;
  const entry = shippedFile(fromSources ? 'workers/source-entry.mjs' : 'store/checkpoint-thread.js');
  sqlite.pragma('wal_autocheckpoint = 0');
  const worker = new Worker(entry, { workerData: data });
  // Never what keeps the process alive.
  worker.unref();
  let last: CheckpointReport | undefined;
  let running = true;
  const exited = new Promise<void>((resolve) => {
    worker.once('exit', () => {
      running = false;
      if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
      resolve();
    });
  });
  worker.on('message', (report: CheckpointReport) => {
    last = report;
  });
  // A thread that cannot start or dies takes its error to 'exit', which hands checkpoints back (above).
  worker.on('error', () => {});
  return {
    get last() {
      return last;
    },
    get running() {
      return running;
    },
    async stop() {
      if (!running) return;
      worker.postMessage('stop');
      const timer = setTimeout(() => void worker.terminate(), STOP_WAIT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}
