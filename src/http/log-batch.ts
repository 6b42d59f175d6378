/**
 * Log lines gathered in memory and handed to pino's SonicBoom destination a batch at a time.
 *
 * Written here because SonicBoom's `write` measures the UTF-8 length of the whole chunk it is still
 * gathering on every line (flattening and scanning up to 16 KB), which cost about 3 µs per line at kasir's
 * rate, most of an access-log line. Here a line costs an array push; SonicBoom still does all the writing
 * (asynchronous writes, retries on a full pipe, the synchronous flush at exit) and sees one string per batch.
 */
import type { DestinationStream } from 'pino';

/** What a batch goes to: the SonicBoom that `pino.destination()` builds. */
export interface BatchSink {
  write(text: string): boolean;
  flush(cb?: (err?: Error) => void): void;
  flushSync(): void;
}

export class LogBatch implements DestinationStream {
  private lines: string[] = [];
  private chars = 0;
  private readonly timer: NodeJS.Timeout;

  /**
   * @param sink where batches go
   * @param batchChars a batch goes out once its lines hold this many characters
   * @param intervalMs ...and at least this often, so a quiet server's lines do not wait for company
   */
  constructor(
    private readonly sink: BatchSink,
    private readonly batchChars = 16 * 1024,
    intervalMs = 500,
  ) {
    this.timer = setInterval(() => this.flush(), intervalMs);
    this.timer.unref();
    // Lines still gathered when the process exits go out synchronously. Ahead of the sink's own exit handler,
    // which flushes and closes it.
    process.prependListener('exit', this.exitFlush);
  }

  write(line: string): void {
    this.lines.push(line);
    this.chars += line.length;
    if (this.chars >= this.batchChars) this.flush();
  }

  /** Hands what has gathered to the sink, which writes it asynchronously; `cb` goes to the sink's own flush. */
  flush(cb?: (err?: Error) => void): void {
    if (this.lines.length > 0) {
      const batch = this.lines.length === 1 ? (this.lines[0] as string) : this.lines.join('');
      this.lines = [];
      this.chars = 0;
      this.sink.write(batch);
    }
    if (cb) this.sink.flush(cb);
  }

  /** Writes everything gathered, and everything the sink holds, before returning. */
  flushSync(): void {
    this.flush();
    this.sink.flushSync();
  }

  /** Stops the timer and the exit hook, and writes what is left. */
  end(): void {
    clearInterval(this.timer);
    process.off('exit', this.exitFlush);
    this.flushSync();
  }

  private readonly exitFlush = () => {
    try {
      this.flushSync();
    } catch {
      // The process is exiting and its output is gone (a closed pipe): nothing left to tell.
    }
  };
}
