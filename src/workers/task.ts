/** What a worker thread is asked to do: a function exported by a module (named by its URL) and the input it takes. */

/** Names the function a task runs: the URL of its module and the export's name. */
export interface TaskRef {
  /** The module's URL: `shippedFile('<folder>/x-task.js').href` (from the sources, the .ts beside it). */
  module: string;
  name: string;
  /** Imports the module in this thread (the pool with 0 threads runs the task on the event loop). */
  load(): Promise<unknown>;
}

/** One task as the worker receives it (structured-cloned: plain data, Buffers arrive as Uint8Arrays). */
export interface WorkerTask {
  module: string;
  name: string;
  input: unknown;
}
