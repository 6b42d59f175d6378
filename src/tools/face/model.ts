/**
 * The local face model: @vladmandic/human on TensorFlow.js's WebAssembly backend, with the model files the human
 * package ships (blazeface finds faces, facemesh aligns them, faceres gives age, gender and a 1024-number
 * descriptor). Everything is read from node_modules: no weights are downloaded, no face API is called. Loaded
 * lazily on first use (about 0.3 s, about 180 MB of resident memory) and shared by the face tools; one image is analysed at a
 * time, since the WebAssembly backend runs on one thread anyway.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { io } from '@tensorflow/tfjs';
import type { Human } from '@vladmandic/human';

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

export interface FaceModel {
  /**
   * Finds and describes the faces of one image (any format sharp reads), most confident first, after scaling it
   * down to `side` pixels on its longest side (so the time per image is bounded).
   */
  analyse(image: Buffer, side: number): Promise<DetectedFace[]>;
}

export function createFaceModel(options: { maxFaces: number }): FaceModel {
  let loading: Promise<Human> | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  async function run(image: Buffer, side: number): Promise<DetectedFace[]> {
    loading ??= loadHuman(options.maxFaces).catch((err) => {
      loading = undefined;
      throw err;
    });
    const human = await loading;
    // sharp (libvips) loads with the first face read, not at start: most instances read none.
    const { default: sharp } = await import('sharp');
    const { data, info } = await sharp(image)
      .resize({ width: side, height: side, fit: 'inside', withoutEnlargement: true })
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const tf = human.tf;
    const input = tf.tidy(() =>
      tf.expandDims(tf.tensor3d(new Uint8Array(data), [info.height, info.width, 3], 'int32'), 0),
    );
    try {
      const result = await human.detect(input);
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
      tf.dispose(input);
    }
  }

  return {
    analyse(image, side) {
      const next = queue.then(() => run(image, side));
      queue = next.catch(() => undefined);
      return next;
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

const shared = new Map<number, FaceModel>();

/** The one model of this process for a given face limit (the face tools share it, and so do test servers). */
export function sharedFaceModel(maxFaces: number): FaceModel {
  let model = shared.get(maxFaces);
  if (!model) {
    model = createFaceModel({ maxFaces });
    shared.set(maxFaces, model);
  }
  return model;
}
