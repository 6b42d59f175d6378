/**
 * The face model's inference as a worker task: @vladmandic/human on TensorFlow.js's WebAssembly backend, with the
 * model files the human package ships, all read from node_modules. Loaded in the thread that runs the first image
 * (one model per face limit), and one image at a time per thread, since the WebAssembly backend runs on one thread
 * anyway. Takes the pixels model.ts decoded; answers the faces, most confident first.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { io } from '@tensorflow/tfjs';
import type { Human } from '@vladmandic/human';
import type { DetectedFace } from './model.js';

/** One image to analyse: RGB pixels, row by row, already scaled to the size the model reads. */
export interface FaceInput {
  pixels: Uint8Array;
  width: number;
  height: number;
  maxFaces: number;
}

const require = createRequire(import.meta.url);

/** The human package's exports map names conditions only, so its WebAssembly build is found beside its main file. */
function humanDist(): string {
  return path.dirname(require.resolve('@vladmandic/human'));
}

type TfModule = Human['tf'];

/**
 * Serves `file://` model URLs from disk. TensorFlow.js reads them only through its native Node backend (which
 * downloads a library at install, so it is not used here) and Node's fetch does not open file URLs; this router
 * hands TensorFlow the model JSON and its weight files through its own getModelArtifactsForJSON.
 */
function registerFileLoader(tf: TfModule): void {
  tf.io.registerLoadRouter((url: string | string[]) => {
    if (typeof url !== 'string' || !url.startsWith('file://')) return null;
    const file = fileURLToPath(url);
    return {
      load: async () => {
        const json = JSON.parse(await readFile(file, 'utf8'));
        return tf.io.getModelArtifactsForJSON(json, async (manifest: io.WeightsManifestConfig) => {
          const parts = await Promise.all(
            manifest.flatMap((group) => group.paths.map((p) => readFile(path.join(path.dirname(file), p)))),
          );
          const all = Buffer.concat(parts);
          const weights = all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength) as ArrayBuffer;
          return [manifest.flatMap((group) => group.weights), weights];
        });
      },
    };
  });
}

async function loadHuman(maxFaces: number): Promise<Human> {
  const dist = humanDist();
  const { Human: HumanClass } = require(path.join(dist, 'human.node-wasm.js')) as {
    Human: new (config: unknown) => Human;
  };
  const wasmDir = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm'));
  const human = new HumanClass({
    backend: 'wasm',
    wasmPath: `${pathToFileURL(wasmDir).href}/`,
    modelBasePath: `${pathToFileURL(path.join(dist, '..', 'models')).href}/`,
    debug: false,
    cacheSensitivity: 0,
    face: {
      enabled: true,
      detector: { rotation: false, maxDetected: maxFaces, minConfidence: 0.5, return: false },
      mesh: { enabled: true },
      iris: { enabled: false },
      description: { enabled: true },
      emotion: { enabled: false },
      antispoof: { enabled: false },
      liveness: { enabled: false },
    },
    body: { enabled: false },
    hand: { enabled: false },
    object: { enabled: false },
    gesture: { enabled: false },
    segmentation: { enabled: false },
    filter: { enabled: false },
  });
  registerFileLoader(human.tf);
  await human.load();
  return human;
}

const round = (n: number, digits: number) => Number(n.toFixed(digits));

function unit(v: ArrayLike<number>): number[] {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += (v[i] ?? 0) ** 2;
  const norm = Math.sqrt(sum) || 1;
  return Array.from(v, (x) => round(x / norm, 6));
}

const models = new Map<number, Promise<Human>>();
let queue: Promise<unknown> = Promise.resolve();

async function detect(input: FaceInput): Promise<DetectedFace[]> {
  let loading = models.get(input.maxFaces);
  if (!loading) {
    loading = loadHuman(input.maxFaces).catch((err) => {
      models.delete(input.maxFaces);
      throw err;
    });
    models.set(input.maxFaces, loading);
  }
  const human = await loading;
  const tf = human.tf;
  const tensor = tf.tidy(() =>
    tf.expandDims(tf.tensor3d(new Uint8Array(input.pixels), [input.height, input.width, 3], 'int32'), 0),
  );
  try {
    const result = await human.detect(tensor);
    return result.face
      .filter((f) => Array.isArray(f.embedding) && f.embedding.length > 0)
      .map((f) => ({
        box: f.box,
        boxRaw: f.boxRaw,
        score: round(f.score, 3),
        age: typeof f.age === 'number' ? round(f.age, 1) : null,
        gender: f.gender === 'male' || f.gender === 'female' ? f.gender : null,
        genderScore: typeof f.genderScore === 'number' ? round(f.genderScore, 2) : null,
        embedding: unit(f.embedding ?? []),
      }))
      .sort((a, b) => b.score - a.score);
  } finally {
    tf.dispose(tensor);
  }
}

/** Finds and describes the faces of one image (the task model.ts runs on the pool). */
export function detectFaces(input: FaceInput): Promise<DetectedFace[]> {
  const next = queue.then(() => detect(input));
  queue = next.catch(() => undefined);
  return next;
}
