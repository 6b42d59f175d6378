/**
 * The thread that checkpoints a SQLite database's write-ahead log (see checkpointer.ts), at nice 10: its own
 * connection to the file, a PASSIVE checkpoint every `intervalMs` (it copies what it can, never waiting for the
 * server's writes), and its figures to the parent after each one. It stops, closing its connection, when the parent
 * says 'stop'.
 */
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { lowerThreadPriority } from '../workers/thread-priority.js';

export interface CheckpointThreadData {
  file: string;
  intervalMs: number;
}

/** What the thread tells its parent after each checkpoint (or a failed one). */
export type CheckpointReport =
  | { kind: 'checkpointed'; walFrames: number; copiedFrames: number }
  | { kind: 'failed'; message: string };

const { file, intervalMs } = workerData as CheckpointThreadData;
// A checkpoint is never urgent: at nice 10 it takes a small share of a core the event loop also wants (a process
// pinned to one core, a busy machine), and never none of it, so the log is always copied.
await lowerThreadPriority(false);
const db = new SQLite(file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
// As the server's own connection: a checkpoint syncs the log before copying it and the file after, not every commit.
db.pragma('synchronous = NORMAL');

const timer = setInterval(() => {
  let report: CheckpointReport;
  try {
    const [row] = db.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number; checkpointed: number }>;
    report = { kind: 'checkpointed', walFrames: row?.log ?? 0, copiedFrames: row?.checkpointed ?? 0 };
  } catch (err) {
    report = { kind: 'failed', message: err instanceof Error ? err.message : String(err) };
  }
  parentPort?.postMessage(report);
}, intervalMs);

parentPort?.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort?.close();
});
