/**
 * Draws a card on the worker pool (see workers/pool.ts): the event loop only sends the job and receives the PNG,
 * so a card's layout and encoding never hold other requests up.
 */
import type { CallSignal } from '../http/call-signal.js';
import { shippedFile } from '../shipped-files.js';
import type { WorkerPool } from '../workers/pool.js';
import type { TaskRef } from '../workers/task.js';
import type { CardJob } from './card-task.js';
import type { RenderedPng } from './png.js';

const CARD_TASK: TaskRef = {
  module: shippedFile('render/card-task.js').href,
  name: 'drawCard',
  load: () => import('./card-task.js'),
};

export async function drawCard(pool: WorkerPool, job: CardJob, signal?: CallSignal): Promise<RenderedPng> {
  // A Buffer crosses the thread boundary as a plain Uint8Array.
  const drawn = await pool.run<Omit<RenderedPng, 'png'> & { png: Uint8Array }>(CARD_TASK, job, signal);
  const { png } = drawn;
  return {
    ...drawn,
    png: Buffer.isBuffer(png) ? png : Buffer.from(png.buffer, png.byteOffset, png.byteLength),
  };
}
