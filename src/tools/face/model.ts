/**
 * The local face model as the face tools use it: @vladmandic/human (blazeface finds faces, facemesh aligns them,
 * faceres gives age, gender and a 1024-number descriptor), run on a worker thread by face-task.ts. This side decodes
 * and scales the image (sharp, on libuv's pool) and hands the pixels to the pool; the model loads in the thread on
 * its first image (about 0.3 s, about 180 MB of resident memory), and each thread analyses one image at a time.
 * Nothing is downloaded and no face API is called.
 */
import { availableParallelism } from 'node:os';
import { defaultWorkers } from '../../config/workers.js';
import type { CallSignal } from '../../http/call-signal.js';
import { shippedFile } from '../../shipped-files.js';
import { type WorkerPool, workerPool } from '../../workers/pool.js';
import type { TaskRef } from '../../workers/task.js';
import type { FaceInput } from './face-task.js';

export interface DetectedFace {
  /** Box in the analysed image's pixels. */
  box: [number, number, number, number];
  /** Box as fractions (0..1) of the image's width and height. */
  boxRaw: [number, number, number, number];
  score: number;
  age: number | null;
  gender: 'male' | 'female' | null;
  genderScore: number | null;
  /** The faceres descriptor (1024 numbers), unit length. */
  embedding: number[];
}

/** What the answer names as the model. */
export const FACE_MODEL_ID = 'human-3.3.6/blazeface+facemesh+faceres';
/** The length of faceres' descriptor. */
export const FACE_EMBEDDING_DIMENSIONS = 1024;

const FACE_TASK: TaskRef = {
  module: shippedFile('tools/face/face-task.js').href,
  name: 'detectFaces',
  load: () => import('./face-task.js'),
};

export interface FaceModel {
  /**
   * Finds and describes the faces of one image (any format sharp reads), most confident first, after scaling it
   * down to `side` pixels on its longest side (so the time per image is bounded).
   */
  analyse(image: Buffer, side: number, signal?: CallSignal): Promise<DetectedFace[]>;
}

/** The model, run on `pool` (by default the pool of the default settings). */
export function createFaceModel(options: { maxFaces: number; pool?: WorkerPool }): FaceModel {
  const pool = options.pool ?? workerPool(defaultWorkers(availableParallelism()));
  return {
    async analyse(image, side, signal) {
      // sharp (libvips) loads with the first face read, not at start: most instances read none.
      const { default: sharp } = await import('sharp');
      const { data, info } = await sharp(image)
        .resize({ width: side, height: side, fit: 'inside', withoutEnlargement: true })
        .removeAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
      const input: FaceInput = {
        pixels: data,
        width: info.width,
        height: info.height,
        maxFaces: options.maxFaces,
      };
      return pool.run<DetectedFace[]>(FACE_TASK, input, signal);
    },
  };
}

/** Cosine similarity of two descriptors. */
export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
