// Drawing a card on the worker pool: the same bytes as on the event loop, and the event loop left responsive.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkerPool } from '../workers/pool.js';
import { drawCard } from './draw.js';
import { themeOf } from './themes.js';

describe('drawing a card on the worker pool', () => {
  const threads = createWorkerPool({ threads: 1, queueMax: 4, priority: 'low' });
  const loop = createWorkerPool({ threads: 0, queueMax: 4, priority: 'low' });
  afterAll(() => threads.close());
  const theme = themeOf({}, 'light');

  it('answers the same PNG bytes on a worker thread as on the event loop', async () => {
    const job = {
      kind: 'quote',
      quote: 'Sedikit demi sedikit, lama-lama menjadi bukit.',
      author: 'Pepatah',
      theme,
    } as const;
    const [worker, inline] = await Promise.all([drawCard(threads, job), drawCard(loop, job)]);
    expect(Buffer.isBuffer(worker.png)).toBe(true);
    expect(worker.width).toBe(1200);
    expect(worker.height).toBe(630);
    expect(worker.png.equals(inline.png)).toBe(true);
  }, 120_000);

  it('draws the code image (highlighting included) alike on both', async () => {
    const job = {
      kind: 'code',
      title: 'main.ts',
      code: 'const x: number = 1;\nconsole.log(x);',
      language: 'ts',
    } as const;
    // Each side's first drawing of the language (its grammar compiled as it is met) is already the full colouring.
    const [worker, inline] = await Promise.all([drawCard(threads, job), drawCard(loop, job)]);
    expect(worker.png.equals(inline.png)).toBe(true);
    const [again] = await Promise.all([drawCard(threads, job)]);
    expect(again.png.equals(worker.png)).toBe(true);
  }, 120_000);

  it('keeps the event loop responsive while a burst of large cards is drawn', async () => {
    const podcast = {
      kind: 'title',
      card: {
        width: 3000,
        height: 3000,
        title: 'Ngobrol Santai',
        subtitle: 'Episode 12',
        theme,
        accent: theme.accent,
      },
    } as const;
    await drawCard(threads, podcast); // the thread's fonts and engines are loaded
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const started = performance.now();
    await Promise.all(Array.from({ length: 4 }, () => drawCard(threads, podcast)));
    const took = performance.now() - started;
    delay.disable();
    // Loose bound: the four cards took far longer than any stall of the loop (which sends jobs, takes PNGs).
    expect(delay.max / 1e6).toBeLessThan(Math.max(100, took / 4));
  }, 120_000);
});
