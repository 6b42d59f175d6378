import { afterAll, describe, expect, it } from 'vitest';
import { createWorkerPool } from '../workers/pool.js';
import { drawCard } from './draw.js';
import { themeOf } from './themes.js';

describe('drawing a card on the worker pool', () => {
  const threads = createWorkerPool({ threads: 1, queueMax: 4 });
  const loop = createWorkerPool({ threads: 0, queueMax: 4 });
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
  }, 60_000);

  it('draws the code image (highlighting included) alike on both', async () => {
    const job = {
      kind: 'code',
      title: 'main.ts',
      code: 'const x: number = 1;\nconsole.log(x);',
      language: 'ts',
    } as const;
    const [worker, inline] = await Promise.all([drawCard(threads, job), drawCard(loop, job)]);
    expect(worker.png.equals(inline.png)).toBe(true);
  }, 60_000);
});
