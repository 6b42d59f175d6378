/**
 * What the face tools share: read one image input (safe fetcher, inline base64 or a kasir media link, deleted once
 * read since a face is personal data), scale it to FACE_IMAGE_SIDE, run the local model, and give each face's box
 * in the pixels of the image as the caller sent it (upright).
 */
import type { CallSignal } from '../../http/call-signal.js';
import { ApiError } from '../../http/errors.js';
import { workerPool } from '../../workers/pool.js';
import type { ToolCall, ToolDeps } from '../types.js';
import { createImageReader, type ImageSource, type ReadImage } from '../vision/image-input.js';
import { createFaceModel, type DetectedFace } from './model.js';

export interface FaceAnswer {
  box: { x: number; y: number; width: number; height: number };
  score: number;
  age: number | null;
  gender: 'male' | 'female' | null;
  gender_score: number | null;
}

export interface ReadFaces {
  image: { width: number; height: number };
  faces: Array<{ answer: FaceAnswer; embedding: number[] }>;
}

export interface FaceReader {
  /** Reads one image input (field = its name in errors, e.g. `a`) and finds its faces. */
  read(source: ImageSource, call: ToolCall, field?: string): Promise<ReadFaces>;
  /** Finds the faces of an image already read (kyc-verify reads the document once for both models). */
  ofImage(image: ReadImage, signal?: CallSignal): Promise<ReadFaces>;
  /** A 503 `overloaded` when the model's worker threads cannot take a call now (a tool's preflight). */
  admit(): void;
}

export function createFaceReader(deps: ToolDeps): FaceReader {
  const images = createImageReader(deps);
  const pool = workerPool(deps.config.workers);
  const model = createFaceModel({ maxFaces: deps.config.face.maxFaces, pool });
  const side = deps.config.face.imageSide;
  async function ofImage(image: ReadImage, signal?: CallSignal): Promise<ReadFaces> {
    const faces = await model.analyse(image.jpeg, side, signal);
    // The decoded size is taken before EXIF rotation: a portrait photo stored sideways swaps its sides.
    const { default: sharp } = await import('sharp');
    const scaled = await sharp(image.jpeg).metadata();
    const sideways = scaled.width >= scaled.height !== image.width >= image.height;
    const width = sideways ? image.height : image.width;
    const height = sideways ? image.width : image.height;
    // The model's box may reach past the image's edges (it is drawn around the whole head): clamp it.
    const clamp = (v: number, max: number) => Math.min(max, Math.max(0, Math.round(v * max)));
    const toPixels = (f: DetectedFace) => {
      const [x, y, w, h] = f.boxRaw;
      const left = clamp(x, width);
      const top = clamp(y, height);
      return { x: left, y: top, width: clamp(x + w, width) - left, height: clamp(y + h, height) - top };
    };
    return {
      image: { width, height },
      faces: faces.map((f) => ({
        answer: {
          box: toPixels(f),
          score: f.score,
          age: f.age,
          gender: f.gender,
          gender_score: f.genderScore,
        },
        embedding: f.embedding,
      })),
    };
  }
  return {
    admit: () => pool.admit(),
    ofImage,
    async read(source, call, field) {
      return ofImage(await images.read(source, call, { field, deleteMedia: true, side }), call.signal);
    },
  };
}

/** A 422 naming the input that shows no face (nothing is charged). */
export function noFace(field: string): ApiError {
  return new ApiError('unprocessable', `${field}: no face found in the image`, [
    { field, message: 'no face found in the image' },
  ]);
}
