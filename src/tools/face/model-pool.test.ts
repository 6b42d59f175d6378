// The face model on a worker thread finds what it finds on the event loop.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkerPool } from '../../workers/pool.js';
import { createFaceModel } from './model.js';

const DIR = path.join(import.meta.dirname, '../../../test/fixtures/faces');
const photo = (name: string) => readFileSync(path.join(DIR, name));

describe('the face model on a worker thread', () => {
  const threads = createWorkerPool({ threads: 1, queueMax: 4, priority: 'low' });
  afterAll(() => threads.close());
  const onWorker = createFaceModel({ maxFaces: 10, pool: threads });
  const onLoop = createFaceModel({
    maxFaces: 10,
    pool: createWorkerPool({ threads: 0, queueMax: 4, priority: 'low' }),
  });

  it('finds the same faces, scores and descriptors as on the event loop', async () => {
    for (const name of ['man-1.jpg', 'woman-2.jpg', 'no-face.jpg']) {
      const [worker, loop] = await Promise.all([
        onWorker.analyse(photo(name), 640),
        onLoop.analyse(photo(name), 640),
      ]);
      expect(worker, name).toEqual(loop);
    }
    expect(threads.threads).toBe(1);
  }, 120_000);
});
