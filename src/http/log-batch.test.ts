// LogBatch: log lines gathered into batched writes, flushed on an interval and at exit, whole and in order
// under pino.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type BatchSink, LogBatch } from './log-batch.js';

/** A sink that records what it is given. */
function recordingSink() {
  const writes: string[] = [];
  const sink: BatchSink = {
    write: (text) => {
      writes.push(text);
      return true;
    },
    flush: (cb) => cb?.(),
    flushSync: () => {},
  };
  return { sink, writes };
}

describe('LogBatch', () => {
  const batches: LogBatch[] = [];
  afterEach(() => {
    for (const b of batches.splice(0)) b.end();
    vi.useRealTimers();
  });
  const track = (b: LogBatch) => {
    batches.push(b);
    return b;
  };

  it('holds lines until they fill a batch, then hands them over as one write, in order', () => {
    const { sink, writes } = recordingSink();
    const batch = track(new LogBatch(sink, 30, 60_000));
    batch.write('line one\n');
    batch.write('line two\n');
    batch.write('line three\n');
    expect(writes).toEqual([]);
    batch.write('line four\n');
    expect(writes).toEqual(['line one\nline two\nline three\nline four\n']);
    batch.write('line five\n');
    expect(writes).toHaveLength(1);
  });

  it('writes what a quiet server gathered once the interval passes', () => {
    vi.useFakeTimers();
    const { sink, writes } = recordingSink();
    track(new LogBatch(sink, 16 * 1024, 500)).write('alone\n');
    vi.advanceTimersByTime(499);
    expect(writes).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(writes).toEqual(['alone\n']);
  });

  it('at exit, hands what it holds to the sink ahead of every other exit handler, until ended', () => {
    const { sink, writes } = recordingSink();
    const flushed: string[] = [];
    sink.flushSync = () => flushed.push(writes.join(''));
    const batch = new LogBatch(sink, 16 * 1024, 60_000);
    const onExit = process.listeners('exit')[0] as () => void;
    batch.write('pending\n');
    onExit();
    expect(writes).toEqual(['pending\n']);
    expect(flushed).toEqual(['pending\n']);
    batch.end();
    expect(process.listeners('exit')).not.toContain(onExit);
  });

  it('under pino, every line reaches the file whole and in order once flushed synchronously', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kasir-log-'));
    try {
      const file = path.join(dir, 'out.log');
      // A synchronous destination: what is checked is that the batches carry every line whole and in order. (An
      // asynchronous one can still have a write in flight that its own flushSync overtakes.)
      const destination = pino.destination({ dest: file, sync: true, minLength: 0 });
      await new Promise((r) => destination.once('ready', r));
      const batch = track(new LogBatch(destination, 1024, 60_000));
      const log = pino({ base: null }, batch);
      for (let i = 0; i < 500; i++) log.info({ i }, 'request');
      batch.flushSync();
      const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
      expect(lines.map((l) => (JSON.parse(l) as { i: number }).i)).toEqual([...Array(500).keys()]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
